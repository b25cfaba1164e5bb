# SPDX-License-Identifier: GPL-2.0
"""The warm interpreter behind tests/pyfork/pyfork.c.

usage: python3 -B tests/pyfork/server.py SOCKET PIDFILE

Listens on the Unix socket SOCKET, writes its pid to PIDFILE and goes into
the background once clients can connect (so the caller's next command may
use it). Each request runs in a fork of this process: a copy of an
interpreter that has already started and imported the standard modules
the tests use, with the client's stdin, stdout, stderr, working
directory, environment and arguments. The client gets the exit status
back (or the signal that ended the program), and signals it sends are
passed on; when the client goes away the program is killed.

A program runs here only if its client is in the server's own shoes:
same user, groups, capabilities, namespaces, cgroup, CPUs, scheduling
and umask. Any other client (a test dropping a capability with setpriv,
or in another network namespace with unshare) is refused and runs
python3 itself, so what it does is what python3 would do.

A "--preload DIR MODULE" request imports MODULE from DIR here, in the
server, for the forks that follow (tests/e2e/20-ynl.t: the kernel's YNL
library, a second of every start under emulation).

No program runs in the server itself: each fork starts from the same
state, whatever the programs before it did.
"""
import builtins
import os
import selectors
import signal
import socket
import sys
import traceback

# What the tests' programs import, loaded once.
import json  # noqa: F401
import math  # noqa: F401
import re  # noqa: F401
import runpy
import struct
try:
    import yaml  # noqa: F401
except ImportError:
    pass

REQUEST_MAX = 256 * 1024
BASE_PATH = sys.path[1:]    # without this file's directory
SERVER_FILES = (__file__, runpy.__file__, '<frozen runpy>')


def print_traceback(e):
    """As python3 prints it: from the program's first frame on."""
    tb = e.__traceback__
    while tb and tb.tb_frame.f_code.co_filename in SERVER_FILES:
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)


def run(argv):
    """Run python3's ARGV (-c CODE ARG..., or SCRIPT ARG...); its status."""
    try:
        if argv[0] == '-c':
            sys.argv = ['-c'] + argv[2:]
            sys.path[:] = [''] + BASE_PATH
            code = compile(argv[1], '<string>', 'exec')
            exec(code, {'__name__': '__main__', '__builtins__': builtins})
        else:
            sys.argv = argv
            sys.path[:] = [os.path.dirname(os.path.abspath(argv[0]))] + BASE_PATH
            runpy.run_path(argv[0], run_name='__main__')
        status = 0
    except SystemExit as e:
        if e.code is None:
            status = 0
        elif isinstance(e.code, int):
            status = e.code
        else:
            print(e.code, file=sys.stderr)
            status = 1
    except KeyboardInterrupt as e:
        print_traceback(e)
        status = 130
    except BaseException as e:
        print_traceback(e)
        status = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        status = 120
    return status


def child(fds, cwd, argv, env):
    """In the fork: become the client's program."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
    # The server's own descriptors (its socket, other clients') stay there.
    os.closerange(3, os.sysconf('SC_OPEN_MAX'))
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    sys.stdin = open(0, 'r', closefd=False)
    sys.stdout = open(1, 'w', closefd=False)
    sys.stderr = open(2, 'w', closefd=False, buffering=1,
                      errors='backslashreplace')
    status = run(argv)
    sys.stderr.flush()
    os._exit(status & 0xff)


# What a program inherits from its process and must be the client's:
# /proc/PID/status lines, namespaces, and /proc/PID/stat fields (nice,
# rt_priority, policy).
STATUS_KEYS = ('Umask', 'Uid', 'Gid', 'Groups', 'NoNewPrivs', 'Seccomp',
               'CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb',
               'Cpus_allowed_list', 'Mems_allowed_list')
NAMESPACES = ('cgroup', 'ipc', 'mnt', 'net', 'pid', 'time', 'user', 'uts')
STAT_FIELDS = (19, 40, 41)


def identity(pid):
    """Everything of process PID a program would inherit; None if gone.
    What this kernel lacks (a namespace, cgroups) is left out."""
    try:
        with open(f'/proc/{pid}/status') as f:
            status = [l for l in f if l.split(':')[0] in STATUS_KEYS]
        ns = [os.readlink(f'/proc/{pid}/ns/{n}') for n in NAMESPACES
              if os.path.exists(f'/proc/self/ns/{n}')]
        cgroup = ''
        if os.path.exists('/proc/self/cgroup'):
            with open(f'/proc/{pid}/cgroup') as f:
                cgroup = f.read()
        with open(f'/proc/{pid}/stat') as f:
            stat = f.read().rsplit(')', 1)[1].split()
        return status, ns, cgroup, [stat[i - 3] for i in STAT_FIELDS]
    except OSError:
        return None


def peer_pid(conn):
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                            struct.calcsize('3i'))
    return struct.unpack('3i', creds)[0]


def preload(directory, module):
    sys.path.insert(0, directory)
    try:
        __import__(module)
    finally:
        sys.path.remove(directory)


class Server:
    def __init__(self, path):
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(path)
        self.listener.listen(64)
        self.sel.register(self.listener, selectors.EVENT_READ, self.accept)
        self.identity = None

    def accept(self, _):
        conn, _ = self.listener.accept()
        try:
            msg, fds, _, _ = socket.recv_fds(conn, REQUEST_MAX, 3)
        except OSError:
            conn.close()
            return
        fields = msg.decode('utf-8', 'surrogateescape').split('\0')[:-1]
        try:
            cwd, argc = fields[0], int(fields[1])
            argv = fields[2:2 + argc]
            env = dict(e.split('=', 1) for e in fields[2 + argc:] if '=' in e)
        except (IndexError, ValueError):
            argv = []
        if len(fds) != 3 or not argv:
            self.answer(conn, b'exit 125', fds)
            return
        if self.identity is None or identity(peer_pid(conn)) != self.identity:
            self.answer(conn, b'refused', fds)
            return
        if argv[0] == '--preload' and len(argv) == 3:
            try:
                preload(argv[1], argv[2])
                self.answer(conn, b'exit 0', fds)
            except Exception:
                os.write(fds[2], traceback.format_exc().encode())
                self.answer(conn, b'exit 1', fds)
            return
        pid = os.fork()
        if pid == 0:
            self.listener.close()
            conn.close()
            child(fds, cwd, argv, env)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        job = {'pid': pid, 'pidfd': pidfd, 'conn': conn}
        self.sel.register(pidfd, selectors.EVENT_READ, lambda _: self.ended(job))
        self.sel.register(conn, selectors.EVENT_READ, lambda _: self.client(job))

    @staticmethod
    def answer(conn, reply, fds):
        for fd in fds:
            os.close(fd)
        try:
            conn.send(reply)
        except OSError:
            pass
        conn.close()

    def client(self, job):
        """A signal to pass on, or the client went away."""
        try:
            msg = job['conn'].recv(64)
        except OSError:
            msg = b''
        if msg.startswith(b'kill '):
            os.kill(job['pid'], int(msg[5:]))
            return
        self.sel.unregister(job['conn'])
        job['conn'].close()
        job['conn'] = None
        os.kill(job['pid'], signal.SIGKILL)

    def ended(self, job):
        _, status = os.waitpid(job['pid'], 0)
        self.sel.unregister(job['pidfd'])
        os.close(job['pidfd'])
        if job['conn'] is None:
            return
        if os.WIFSIGNALED(status):
            reply = b'signal %d' % os.WTERMSIG(status)
        else:
            reply = b'exit %d' % os.WEXITSTATUS(status)
        self.sel.unregister(job['conn'])
        self.answer(job['conn'], reply, [])

    def serve(self):
        while True:
            for key, _ in self.sel.select():
                key.data(key.fileobj)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: server.py SOCKET PIDFILE')
    server = Server(sys.argv[1])
    if identity(os.getpid()) is None:
        sys.exit('server.py: cannot read what this process is in /proc')
    sys.dont_write_bytecode = True
    # Into the background once clients can connect.
    pid = os.fork()
    if pid:
        with open(sys.argv[2], 'w') as f:
            print(pid, file=f)
        os._exit(0)
    os.setsid()
    server.identity = identity(os.getpid())
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve()


if __name__ == '__main__':
    main()
