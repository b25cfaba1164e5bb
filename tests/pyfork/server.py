# SPDX-License-Identifier: GPL-2.0
"""The warm interpreter behind tests/pyfork/pyfork.c.

usage: python3 -B tests/pyfork/server.py SOCKET PIDFILE

Listens on the Unix socket SOCKET, writes its pid to PIDFILE and goes into
the background once clients can connect (so the caller's next command may
use it); its own errors go to its stderr. Each request runs in a fork of
this process: a copy of an interpreter that has already started and
imported the standard modules the tests use, given the client's open
file descriptors, working directory, environment and arguments. The
client gets the exit status back (or the signal that ended the
program); signals it is sent are passed on; the program is killed when
the client or the server goes away.

A program runs here only if its client stands where the server stands:
same user, groups, capabilities, signal mask and ignored signals,
resource limits, namespaces, root, security label, cgroup, CPUs,
scheduling, umask, and Python's and the locale's environment variables.
Any other client (a test dropping a capability with setpriv, or in
another network namespace with unshare) is refused and runs python3
itself, so what it does is what python3 would do.

A "--preload DIR MODULE" request imports MODULE from DIR here, in the
server (its import-time code runs here once), for every fork that follows
(tests/e2e/20-ynl.t: the kernel's YNL library, a second of every start
under emulation). Nothing else runs in the server: each fork starts from
the same state, whatever the programs before it did.
"""
import builtins
import ctypes
import fcntl
import os
import selectors
import signal
import socket
import struct
import sys
import traceback
import types

# What the tests' programs import, loaded once.
import json  # noqa: F401
import math  # noqa: F401
import re  # noqa: F401
import runpy
try:
    import yaml  # noqa: F401
except ImportError:
    pass

REQUEST_MAX = 128 * 1024
MAX_FDS = 253                   # SCM_MAX_FD
BASE_PATH = sys.path[1:]        # without this file's directory
SERVER_FILES = (__file__, runpy.__file__, '<frozen runpy>')
PR_SET_PDEATHSIG = 1

# What a program inherits from its process and must be the client's:
# /proc/PID/status lines, namespaces, and /proc/PID/stat fields (nice,
# rt_priority, policy). SIGPIPE and SIGXFSZ are left out of the ignored
# signals: python3 ignores both whatever it inherits.
STATUS_KEYS = ('Umask', 'Uid', 'Gid', 'Groups', 'NoNewPrivs', 'Seccomp',
               'CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb',
               'SigBlk', 'Cpus_allowed_list', 'Mems_allowed_list')
PYTHON_IGNORES = (1 << (signal.SIGPIPE - 1)) | (1 << (signal.SIGXFSZ - 1))
NAMESPACES = ('cgroup', 'ipc', 'mnt', 'net', 'pid', 'pid_for_children',
              'time', 'time_for_children', 'user', 'uts')
STAT_FIELDS = (19, 40, 41)
ENV_PREFIXES = ('PYTHON', 'LC_', 'LANG')


class Done(Exception):
    """A fork's program has ended: leave through the interpreter's exit."""

    def __init__(self, status, interrupted=False):
        super().__init__(status)
        self.status = status
        self.interrupted = interrupted


def read(path):
    with open(path) as f:
        return f.read()


def readable_extras():
    """Of cgroup and the LSM label, those this kernel has."""
    found = []
    for f in ('cgroup', 'attr/current'):
        try:
            read(f'/proc/self/{f}')
            found.append(f)
        except OSError:
            pass
    return found


def identity(pid):
    """Everything of process PID a program would inherit; None if it
    cannot be read. What this kernel lacks (a namespace, cgroups, an
    LSM) is left out."""
    try:
        status, ignored = [], 0
        for line in read(f'/proc/{pid}/status').splitlines():
            key, _, value = line.partition(':')
            if key in STATUS_KEYS:
                status.append(line)
            elif key == 'SigIgn':
                ignored = int(value, 16) & ~PYTHON_IGNORES
        ns = [os.readlink(f'/proc/{pid}/ns/{n}') for n in NAMESPACES
              if os.path.exists(f'/proc/self/ns/{n}')]
        extra = [read(f'/proc/{pid}/{f}') for f in readable_extras()]
        stat = read(f'/proc/{pid}/stat').rsplit(')', 1)[1].split()
        return (status, ignored, ns, extra, read(f'/proc/{pid}/limits'),
                os.readlink(f'/proc/{pid}/root'),
                [stat[i - 3] for i in STAT_FIELDS])
    except (OSError, ValueError):
        return None


def python_env(env):
    return {k: v for k, v in env.items() if k.startswith(ENV_PREFIXES)}


def print_traceback(e):
    """As python3 prints it: from the program's first frame on."""
    tb = e.__traceback__
    while tb and tb.tb_frame.f_code.co_filename in SERVER_FILES:
        tb = tb.tb_next
    traceback.print_exception(type(e), e, tb)


def run(argv):
    """Run python3's ARGV (-c CODE ARG..., or SCRIPT ARG...)."""
    try:
        if argv[0] == '-c':
            sys.argv = ['-c'] + argv[2:]
            sys.path[:] = [''] + BASE_PATH
            main = types.ModuleType('__main__')
            main.__builtins__ = builtins
            sys.modules['__main__'] = main
            exec(compile(argv[1], '<string>', 'exec'), main.__dict__)
        else:
            sys.argv = argv
            sys.path[:] = [os.path.dirname(os.path.abspath(argv[0]))] + BASE_PATH
            runpy.run_path(argv[0], run_name='__main__')
    except SystemExit as e:
        if e.code is None:
            raise Done(0)
        if isinstance(e.code, int):
            raise Done(e.code)
        print(e.code, file=sys.stderr)
        raise Done(1)
    except KeyboardInterrupt as e:
        print_traceback(e)
        raise Done(130, interrupted=True)
    except BaseException as e:
        print_traceback(e)
        raise Done(1)
    raise Done(0)


def install_fds(targets, fds):
    """Give the fork the client's descriptors, at the client's numbers,
    and nothing of the server's."""
    top = max(targets + [2]) + 1
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, top) for fd in fds]
    for fd in fds:
        os.close(fd)
    for target, fd in zip(targets, moved):
        os.dup2(fd, target, inheritable=True)
    keep = set(targets)
    for name in os.listdir('/proc/self/fd'):
        fd = int(name)
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def child(server_pid, targets, fds, cwd, argv, env):
    """In the fork: become the client's program."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server_pid:
        os._exit(125)
    install_fds(targets, fds)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    # As python3 opens them: line-buffered on a terminal, and with the
    # encoding and error handler the (same) locale gave the server's.
    sys.stdin = open(0, 'r', closefd=False, encoding=sys.__stdin__.encoding,
                     errors=sys.__stdin__.errors)
    sys.stdout = open(1, 'w', closefd=False, encoding=sys.__stdout__.encoding,
                      errors=sys.__stdout__.errors,
                      buffering=1 if os.isatty(1) else -1)
    sys.stderr = open(2, 'w', closefd=False, encoding=sys.__stderr__.encoding,
                      errors='backslashreplace', buffering=1)
    run(argv)


def preload(directory, module):
    sys.path.insert(0, directory)
    try:
        __import__(module)
    finally:
        sys.path.remove(directory)


def parse(msg):
    """cwd, argc, argv..., nfds, fd numbers..., env... (NUL-separated)."""
    fields = msg.decode('utf-8', 'surrogateescape').split('\0')[:-1]
    cwd, argc = fields[0], int(fields[1])
    argv = fields[2:2 + argc]
    nfds = int(fields[2 + argc])
    targets = [int(f) for f in fields[3 + argc:3 + argc + nfds]]
    env = dict(e.split('=', 1) for e in fields[3 + argc + nfds:] if '=' in e)
    return cwd, argv, targets, env


class Server:
    def __init__(self, path):
        self.sel = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.listener.bind(path)
        self.listener.listen(64)
        self.sel.register(self.listener, selectors.EVENT_READ, self.accept)
        self.identity = identity(os.getpid())
        self.env = python_env(os.environ)

    def accept(self, _):
        conn, _ = self.listener.accept()
        fds = []
        try:
            # A client stopped between connect and send stalls no one long.
            conn.settimeout(10)
            msg, fds, _, _ = socket.recv_fds(conn, REQUEST_MAX, MAX_FDS)
            conn.settimeout(None)
            cwd, argv, targets, env = parse(msg)
            pid = struct.unpack('3i', conn.getsockopt(
                socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize('3i')))[0]
        except (OSError, ValueError, IndexError):
            self.answer(conn, b'exit 125', fds)
            return
        if (len(targets) != len(fds) or not argv or self.identity is None
                or identity(pid) != self.identity
                or python_env(env) != self.env):
            self.answer(conn, b'refused', fds)
            return
        if argv[0] == '--preload' and len(argv) == 3:
            try:
                preload(argv[1], argv[2])
                self.answer(conn, b'exit 0', fds)
            except Exception:
                print(traceback.format_exc(), file=sys.stderr, flush=True)
                self.answer(conn, b'exit 1', fds)
            return
        server_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            try:
                self.close(conn)
                child(server_pid, targets, fds, cwd, argv, env)
            except Done:
                raise
            except BaseException:
                traceback.print_exc()
                os._exit(125)
        for fd in fds:
            os.close(fd)
        job = {'pid': pid, 'pidfd': os.pidfd_open(pid), 'conn': conn}
        self.sel.register(job['pidfd'], selectors.EVENT_READ,
                          lambda _: self.ended(job))
        self.sel.register(conn, selectors.EVENT_READ, lambda _: self.client(job))

    def close(self, conn):
        """In a fork: the server's sockets and descriptors go."""
        for key in list(self.sel.get_map().values()):
            if isinstance(key.fileobj, int):
                os.close(key.fileobj)
            else:
                key.fileobj.close()
        self.sel.close()
        conn.close()

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
        if job['conn'] is None:     # answered in this round already
            return
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
        job['conn'] = None

    def serve(self):
        while True:
            for key, _ in self.sel.select():
                try:
                    key.data(key.fileobj)
                except Done:
                    raise
                except Exception:
                    print(traceback.format_exc(), file=sys.stderr, flush=True)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: server.py SOCKET PIDFILE')
    if not hasattr(socket, 'recv_fds') or not hasattr(os, 'pidfd_open'):
        sys.exit('server.py: needs Python 3.9 or later (recv_fds, pidfd_open)')
    server = Server(sys.argv[1])
    if server.identity is None:
        sys.exit('server.py: cannot read what this process is in /proc')
    sys.dont_write_bytecode = True
    # Into the background once clients can connect.
    pid = os.fork()
    if pid:
        with open(sys.argv[2], 'w') as f:
            print(pid, file=f)
        os._exit(0)
    os.setsid()
    # The identity again: setsid changed nothing it holds, the fork its pid.
    server.identity = identity(os.getpid())
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:
        server.serve()
    except Done as done:
        # A fork's program ended: atexit handlers, threads and buffered
        # files finish as in python3; an uncaught ^C dies of SIGINT.
        if done.interrupted:
            sys.stdout.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        sys.exit(done.status)


if __name__ == '__main__':
    main()
