// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz: random and mutated generic netlink messages to the "hvtrace"
 * family, every answer checked against what the ABI says it must be.
 *
 *   nlfuzz [options]                      fuzz as this process is
 *   nlfuzz [options] -- WRAPPER ARGS...   fuzz as WRAPPER makes it, e.g.
 *       -- setpriv --reuid=65534 --regid=65534 --clear-groups
 *       -- setpriv --bounding-set=-sys_admin,-perfmon
 *       -- unshare --net
 *
 * With a wrapper, this process stays root in the initial namespaces as
 * the supervisor, and runs WRAPPER ARGS... /proc/self/exe --child ...:
 *
 *     supervisor (root)                      sender (WRAPPER's privileges)
 *     baseline: GET_CONFIG, GET_STATUS
 *                      <-- "check" (after a refused SET_CONFIG at most
 *                           every --set-check-gap steps, every
 *                           --check-every steps, at the end)
 *     GET_CONFIG, GET_STATUS again:
 *     unchanged? ----------------------->  "ok", or a finding
 *
 * A change a refused request made stays until a later request undoes it,
 * which would take a second hole: a check after some refused SET_CONFIGs
 * (not each: under emulation the checks were a third of the run) still
 * sees it, and --set-check-gap 1 names the very step.
 *
 * A sender that may change things (CAP_SYS_ADMIN) checks itself: it keeps
 * a model of the configuration (oracle.c), applies what the kernel
 * accepted, and compares with GET_CONFIG after every SET_CONFIG.
 *
 * Each step is drawn from a generator seeded with (seed, step), so a
 * finding names its step and the same seed makes the same messages:
 *   - one message, or a batch of several in one send, or a pipeline of
 *     sends before reading: templates recorded from hvctl (--corpus) or
 *     built from the ABI, sent as they are first, then mutated (gen.c)
 *   - a dump on a fresh socket, closed after reading a little or nothing
 *   - a dump on a socket that is never read, closed later
 *   - joining and leaving the "events" group (and groups that do not
 *     exist), by setsockopt and by bind
 *   - a new main socket (ownership of the buffers ends with a socket)
 * After each send a sentinel bounds the answers (wire.c); every answer is
 * read, every wait has a timeout.
 *
 * Exit status: 0 without findings, 1 with, 2 when it could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nlfuzz.h"

struct host host;

static struct {
	uint64_t seed;
	unsigned long count;
	const char *corpus;
	int timeout_ms;
	unsigned int check_every;
	unsigned int set_check_gap;	/* unprivileged: steps between checks */
	const char *expect;
	const char *name;
	bool verbose;
	/* --child */
	int req_fd, resp_fd, root_fd;
	uint16_t family;
	uint32_t group;
	unsigned long init_netns, init_userns;
	bool child;
} opt = {
	.seed = 1, .count = 10000, .timeout_ms = 10000, .check_every = 100,
	.set_check_gap = 8,
	.req_fd = -1, .resp_fd = -1, .root_fd = -1,
};

static const char *const priv_names[] = {
	[PRIV_ADMIN] = "admin", [PRIV_OBSERVE] = "observe",
	[PRIV_NONE] = "none", [PRIV_NETNS] = "netns",
};

/* ---- figures ------------------------------------------------------- */

static struct {
	unsigned long steps, sends, sent, accepted, refused, dropped, ackonly;
	unsigned long unread;	/* sent on sockets never read to the end */
	unsigned long err[128];
	unsigned long cmd[256][2][3];	/* [cmd][dump][sent, accepted, refused] */
	unsigned long dump_msgs, replies, mcast_msgs, stray;
	unsigned long joins, joins_ok, join_err[128], leaves, bind_joins;
	unsigned long batches, pipelines, abandoned, stalled, reopened;
	unsigned long checks, findings, inherited;
	unsigned long long ns[256][2];	/* time of the steps they began */
	unsigned long long check_ns, side_ns;	/* state checks; other steps */
} fig;

/* Why requests were refused, as the oracle said (and the kernel agreed). */
static struct {
	const char *why;
	unsigned long n;
} whys[48];

static void count_why(const char *why)
{
	unsigned int i;

	for (i = 0; i < sizeof(whys) / sizeof(whys[0]); i++) {
		if (whys[i].why == why || !whys[i].why) {
			whys[i].why = why;
			whys[i].n++;
			return;
		}
	}
}

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* ---- findings ------------------------------------------------------ */

#define MAX_REPORTS 25

static char seen_keys[512][96];
static unsigned int nseen;

static void print_allow(const struct allow *a)
{
	const char *sep = "";
	int e;

	printf("{");
	for (e = 0; e < 128; e++)
		if (allowed(a, e)) {
			printf("%s%s", sep, e ? strerrorname_np(e) : "success");
			sep = ", ";
		}
	printf("}");
}

/*
 * Report a finding once per kind (what, command, expectation, outcome),
 * in full the first MAX_REPORTS times; count every one.
 */
static void finding(unsigned long step, const char *what,
		    const struct unit *u, const uint8_t *buf, int got,
		    const char *detail)
{
	char key[96];
	unsigned int i;

	fig.findings++;
	snprintf(key, sizeof(key), "%s/%u/%llx%llx/%d", what, u ? u->cmd : 0,
		 u ? (unsigned long long)u->allow.w[0] : 0ULL,
		 u ? (unsigned long long)u->allow.w[1] : 0ULL, got);
	for (i = 0; i < nseen; i++)
		if (!strcmp(seen_keys[i], key))
			return;
	if (nseen < sizeof(seen_keys) / sizeof(seen_keys[0]))
		snprintf(seen_keys[nseen++], sizeof(key), "%s", key);
	if (nseen > MAX_REPORTS)
		return;
	printf("FINDING (%s sender, seed %llu, step %lu): %s\n", opt.name,
	       (unsigned long long)opt.seed, step, what);
	if (detail && *detail)
		printf("  %s\n", detail);
	if (!u)
		return;
	printf("  %s %s, expected ", cmd_name(u->cmd),
	       u->dump ? "dump" : "doit");
	print_allow(&u->allow);
	if (u->why)
		printf(" (%s)", u->why);
	if (got >= 0)
		printf(", got %s", got ? strerrorname_np(got) : "success");
	if (u->ext_msg[0])
		printf(" \"%s\"", u->ext_msg);
	printf("\n");
	if (buf) {
		size_t n = u->len > 2048 ? 2048 : u->len;

		hexdump(buf + u->off, n, "    ");
		if (n < u->len)
			printf("    ... (%u bytes in all)\n", u->len);
		decode(buf + u->off, u->len, "    ");
	}
}

/* ---- the sender's privileges --------------------------------------- */

static unsigned long ns_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

static uint64_t cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long v = 0;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38

static enum priv my_priv(void)
{
	uint64_t caps = cap_eff();

	if (ns_ino("/proc/self/ns/net") != opt.init_netns)
		return PRIV_NETNS;
	/* Capabilities in a user namespace of our own count for nothing. */
	if (ns_ino("/proc/self/ns/user") != opt.init_userns)
		return PRIV_NONE;
	if (caps >> CAP_SYS_ADMIN_BIT & 1)
		return PRIV_ADMIN;
	if (caps >> CAP_PERFMON_BIT & 1)
		return PRIV_OBSERVE;
	return PRIV_NONE;
}

static void host_facts(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned int a, b, kmax = 8191;

	host.nr_cpu_ids = 1;
	if (f) {
		char s[256], *p;

		if (fgets(s, sizeof(s), f)) {
			p = strrchr(s, ',');
			p = p ? p + 1 : s;
			if (sscanf(p, "%u-%u", &a, &b) == 2)
				host.nr_cpu_ids = b + 1;
			else if (sscanf(p, "%u", &a) == 1)
				host.nr_cpu_ids = a + 1;
		}
		fclose(f);
	}
	f = fopen("/sys/devices/system/cpu/kernel_max", "r");
	if (f) {
		if (fscanf(f, "%u", &kmax) != 1)
			kmax = 8191;
		fclose(f);
	}
	host.cpumask_bytes = (kmax + 1 + 63) / 64 * 8;
	/* The policy takes 8192 CPUs' worth, whatever NR_CPUS (kmod/genl.c). */
	if (host.cpumask_bytes < 8192 / 8)
		host.cpumask_bytes = 8192 / 8;
	host.cpu_bytes = (host.nr_cpu_ids + 63) / 64 * 8;
	if (host.cpu_bytes > CPU_WORDS_MAX * 8) {
		fprintf(stderr, "nlfuzz: %u possible CPUs: more than the model holds\n",
			host.nr_cpu_ids);
		exit(2);
	}
}

/* ---- state checks -------------------------------------------------- */

struct snapshot {
	uint8_t cfg[65536];
	size_t cfg_len;
	struct status_snap st;
};

static uint32_t ctl_seq = 0x40000000;

/* The configuration, and with FULL the status too. */
static int snap(int fd, uint16_t family, struct snapshot *s, bool full)
{
	int err = fetch_config(fd, family, &ctl_seq, s->cfg, sizeof(s->cfg),
			       &s->cfg_len, opt.timeout_ms);

	if (err || !full)
		return err;
	return fetch_status(fd, family, &ctl_seq, &s->st, opt.timeout_ms);
}

/* What a sender without CAP_SYS_ADMIN may never change. */
static bool unchanged(const struct snapshot *base, const struct snapshot *now,
		      bool full, uint64_t *age, char *diff, size_t sz)
{
	if (now->cfg_len != base->cfg_len ||
	    memcmp(now->cfg, base->cfg, base->cfg_len)) {
		snprintf(diff, sz, "the configuration changed");
		return false;
	}
	if (!full)
		return true;
	if (now->st.recording != base->st.recording) {
		snprintf(diff, sz, "recording changed");
		return false;
	}
	if (now->st.reader != base->st.reader) {
		snprintf(diff, sz, "a reader owns the buffers now");
		return false;
	}
	if (now->st.mem_bytes != base->st.mem_bytes) {
		snprintf(diff, sz, "hvtrace's memory changed (the buffers?)");
		return false;
	}
	if (now->st.exits_seen != base->st.exits_seen ||
	    now->st.acct_len != base->st.acct_len ||
	    memcmp(now->st.acct, base->st.acct, base->st.acct_len)) {
		snprintf(diff, sz, "the accounting changed (drained, cleared?)");
		return false;
	}
	if (now->st.stats_age_ns < *age) {
		snprintf(diff, sz, "the statistics were cleared");
		return false;
	}
	*age = now->st.stats_age_ns;
	return true;
}

struct check_req {
	unsigned long step;
	int full;		/* the status too, not only the configuration */
	char why[40];
};

struct check_resp {
	int ok;
	char diff[200];
};

/* The supervisor: answer the sender's checks until it is done. */
static int supervise(int ctl, pid_t child, int req_fd, int resp_fd)
{
	static struct snapshot base, now;
	struct check_req q;
	uint64_t age;
	int status, bad = 0;

	if (snap(ctl, opt.family, &base, true)) {
		fprintf(stderr, "nlfuzz: supervisor: cannot read the state\n");
		kill(child, SIGKILL);
		return 2;
	}
	age = base.st.stats_age_ns;
	while (read(req_fd, &q, sizeof(q)) == sizeof(q)) {
		struct check_resp r = { .ok = 1 };
		int err = snap(ctl, opt.family, &now, q.full);

		fig.checks++;
		if (err)
			snprintf(r.diff, sizeof(r.diff),
				 "cannot read the state: %s", strerror(-err));
		r.ok = !err && unchanged(&base, &now, q.full, &age, r.diff,
					 sizeof(r.diff));
		if (!r.ok) {
			bad++;
			/* Compare with what it is now from here on. */
			snap(ctl, opt.family, &base, true);
			age = base.st.stats_age_ns;
		}
		if (write(resp_fd, &r, sizeof(r)) != sizeof(r))
			break;
	}
	waitpid(child, &status, 0);
	/* After the sender is gone: still nothing changed. */
	if (!snap(ctl, opt.family, &now, true)) {
		char diff[200];

		fig.checks++;
		if (!unchanged(&base, &now, true, &age, diff, sizeof(diff))) {
			printf("FINDING (supervisor, after the sender): %s\n", diff);
			bad++;
		}
	}
	printf("nlfuzz: supervisor: %lu checks of the configuration and status, %s\n",
	       fig.checks, bad ? "CHANGED" : "all unchanged");
	if (WIFSIGNALED(status)) {
		printf("nlfuzz: the sender died of signal %d\n", WTERMSIG(status));
		return 2;
	}
	if (bad)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

/* ---- the sender ---------------------------------------------------- */

/* A socket the sender owns and what the module thinks of it. */
struct sock {
	int fd;
	bool lease;		/* it owns the buffers (READ_EVENTS) */
	bool mcast;		/* joined the events group */
};

#define NR_STALLED 4

static struct {
	enum priv priv;
	struct sock main;	/* requests, checked answers */
	int ctl;		/* the admin's own checks */
	struct sock stalled[NR_STALLED];
	bool lease_unsure;	/* some socket may own the buffers */
	struct state st;	/* what the module's state must be */
	unsigned long last_set_check;	/* step of the last check after SET_CONFIG */
} S;

static int open_main(struct rng *r)
{
	return nl_open(true, chance(r, 90), 1 << 20);
}

static void close_sock(struct sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->lease = false;
	s->mcast = false;
}

/* The lease as a socket sees it. */
static enum lease lease_for(const struct sock *s)
{
	unsigned int i;

	if (s->lease)
		return LEASE_MAIN;
	if (S.main.lease && s != &S.main)
		return LEASE_OTHER;
	for (i = 0; i < NR_STALLED; i++)
		if (S.stalled[i].lease && &S.stalled[i] != s)
			return LEASE_OTHER;
	return S.lease_unsure ? LEASE_UNSURE : LEASE_NONE;
}

static bool check_state(unsigned long step, const char *why, bool full);

/*
 * The answer a unit got: 0 (accepted), an errno (refused), or -1 when
 * nothing came although something had to.
 */
static int outcome(const struct unit *u)
{
	if (u->got_err || u->got_done)
		return u->err;
	if (u->got_reply || u->dump_started)
		return 0;
	return u->ack || u->dump ? -1 : 0;
}

static void tally(const struct unit *u, int res)
{
	unsigned int d = u->dump;

	fig.sent++;
	if (u->kind == U_DROPPED) {
		fig.dropped++;
		return;
	}
	if (u->kind == U_ACKONLY) {
		fig.ackonly++;
		return;
	}
	fig.cmd[u->cmd][d][0]++;
	if (res == 0) {
		fig.accepted++;
		fig.cmd[u->cmd][d][1]++;
	} else if (res > 0) {
		fig.refused++;
		fig.cmd[u->cmd][d][2]++;
		if (res < 128)
			fig.err[res]++;
	} else {
		fig.unread++;
	}
}

/* Judge each unit of a step; update the model with what was accepted. */
static bool judge(unsigned long step, struct unit *units, unsigned int n,
		  const uint8_t *buf[], const char *notes[],
		  const struct state *before)
{
	bool diverged = false, set_config = false;
	struct state st = *before;
	unsigned int i;
	char detail[600];

	for (i = 0; i < n; i++) {
		struct unit *u = &units[i];
		int res = outcome(u);
		const uint8_t *b = buf[i];

		tally(u, res);
		snprintf(detail, sizeof(detail), "template %s", notes[i]);
		if (u->kind == U_DROPPED) {
			if (u->got_err || u->got_reply || u->got_done)
				finding(step, "an answer to a message netlink drops",
					u, b, res, detail);
			continue;
		}
		if (u->kind == U_ACKONLY) {
			if (u->ack ? res != 0 : (u->got_err || u->got_reply))
				finding(step, "a non-request answered as a request",
					u, b, res, detail);
			continue;
		}
		if (S.priv != PRIV_ADMIN && (u->got_reply || u->dump_msgs) &&
		    (S.priv != PRIV_OBSERVE || u->cmd == HVTRACE_CMD_READ_EVENTS))
			finding(step, "data for a sender without the privilege",
				u, b, res, detail);
		if (res < 0) {
			finding(step, "no answer to a request", u, b, res, detail);
			continue;
		}
		if (res > 0 && allowed(&u->allow, res))
			count_why(u->why ? u->why :
				  "busy or out of memory, where the state allows it");
		if (!allowed(&u->allow, res) && !(diverged && u->uncertain))
			finding(step, res == 0 ? "accepted, must be refused" :
				allowed(&u->allow, 0) ?
				"refused, must be accepted" : "wrong errno",
				u, b, res, detail);
		if (u->cmd == HVTRACE_CMD_SET_CONFIG && !u->dump)
			set_config = true;
		if (S.priv != PRIV_ADMIN)
			continue;
		/* What the module's state is now. */
		if (u->cmd == HVTRACE_CMD_START && !u->dump && !res)
			st.recording = true;
		if (u->cmd == HVTRACE_CMD_STOP && !u->dump && !res)
			st.recording = false;
		if (u->cmd == HVTRACE_CMD_SET_CONFIG && !u->dump && !res &&
		    st.cfg_known) {
			const struct nlmsghdr *h = (const void *)(b + u->off);
			char why[96];

			if (cfgm_apply(&st.cfg, b + u->off + NLMSG_HDRLEN +
				       GENL_HDRLEN, h->nlmsg_len - NLMSG_HDRLEN -
				       GENL_HDRLEN, why, sizeof(why))) {
				/* Reported above; the kernel's word counts. */
				st.cfg_known = false;
			}
		}
		if (u->cmd == HVTRACE_CMD_READ_EVENTS && u->dump &&
		    (res == 0 || res == EBUSY) && allowed(&u->allow, 0)) {
			/* lease_take() comes before the reader: either way. */
			if (before->lease == LEASE_NONE ||
			    before->lease == LEASE_MAIN) {
				if (res == 0 || !u->uncertain)
					st.lease = LEASE_MAIN;
				else
					S.lease_unsure = true;
			}
		}
		if (u->uncertain || (res != 0 && allowed(&u->allow, 0)))
			diverged = true;
	}
	S.st.recording = st.recording;
	S.st.cfg = st.cfg;
	S.st.cfg_known = st.cfg_known;
	if (st.lease == LEASE_MAIN)
		S.main.lease = true;
	return set_config;
}

static void child_check(unsigned long step, const char *why, bool full)
{
	struct check_req q = { .step = step, .full = full };
	struct check_resp r;

	snprintf(q.why, sizeof(q.why), "%s", why);
	fig.checks++;
	if (write(opt.req_fd, &q, sizeof(q)) != sizeof(q) ||
	    read(opt.resp_fd, &r, sizeof(r)) != sizeof(r)) {
		finding(step, "the supervisor does not answer", NULL, NULL, -1,
			NULL);
		return;
	}
	if (!r.ok) {
		char d[256];

		snprintf(d, sizeof(d), "%s (checked %s)", r.diff, why);
		finding(step, "a refused request changed something", NULL,
			NULL, -1, d);
	}
}

/* The admin's own check: the kernel's configuration against the model. */
static bool admin_check(unsigned long step, const char *why, bool full)
{
	static struct snapshot now;
	struct cfgm k;
	char diff[256], d[320];
	unsigned int i;
	bool any;

	fig.checks++;
	if (snap(S.ctl, opt.family, &now, full)) {
		finding(step, "cannot read the configuration", NULL, NULL, -1,
			why);
		return false;
	}
	if (cfgm_parse(&k, now.cfg, now.cfg_len)) {
		finding(step, "GET_CONFIG's reply does not parse", NULL, NULL,
			-1, why);
		return false;
	}
	if (S.st.cfg_known && !cfgm_equal(&S.st.cfg, &k, diff, sizeof(diff))) {
		snprintf(d, sizeof(d), "%s (checked %s)", diff, why);
		finding(step, "the configuration is not what was accepted",
			NULL, NULL, -1, d);
	}
	S.st.cfg = k;
	S.st.cfg_known = true;
	if (!full)
		return true;
	if (now.st.recording != S.st.recording) {
		snprintf(d, sizeof(d), "recording is %d, want %d (checked %s)",
			 now.st.recording, S.st.recording, why);
		finding(step, "recording is not what was asked", NULL, NULL,
			-1, d);
		S.st.recording = now.st.recording;
	}
	any = S.main.lease;
	for (i = 0; i < NR_STALLED; i++)
		any |= S.stalled[i].lease;
	if (!now.st.reader) {
		if (any) {
			snprintf(d, sizeof(d), "checked %s", why);
			finding(step, "a socket's ownership of the buffers ended while it is open",
				NULL, NULL, -1, d);
		}
		S.main.lease = false;
		for (i = 0; i < NR_STALLED; i++)
			S.stalled[i].lease = false;
		S.lease_unsure = false;
	} else if (!any && !S.lease_unsure) {
		snprintf(d, sizeof(d), "checked %s", why);
		finding(step, "the buffers have an owner that is no open socket",
			NULL, NULL, -1, d);
		S.lease_unsure = true;
	}
	return true;
}

static bool check_state(unsigned long step, const char *why, bool full)
{
	unsigned long long t0 = now_ns();
	bool ok = true;

	if (S.priv == PRIV_ADMIN)
		ok = admin_check(step, why, full);
	else if (opt.req_fd >= 0)
		child_check(step, why, full);
	fig.check_ns += now_ns() - t0;
	return ok;
}

/* ---- steps ----------------------------------------------------------- */

static uint8_t sendbuf[4][SEND_MAX + 64];
static struct wbuf wb[4];

/* Build one message into W (appended): a template, mutated or not. */
static struct msg *build(struct rng *r, struct wbuf *w, uint32_t seq,
			 int want, int recorded, bool pristine, char *note,
			 size_t notesz)
{
	struct msg *m = msg_template(r, want, recorded);
	size_t start = w->len;
	unsigned int k = below(r, 100);

	m->nl_type = opt.family;
	if (!pristine)
		msg_mutate(m, r, k < 20 ? 0 : k < 60 ? 1 : k < 80 ? 2 :
			   3 + below(r, 4));
	msg_serialize(m, w, seq);
	snprintf(note, notesz, "%s%s%.120s", m->origin, m->muts[0] ? " +" : "",
		 m->muts);
	if (!pristine && chance(r, 25)) {
		size_t l = strlen(note);

		snprintf(note + l, notesz - l, " bytes:");
		bytes_mutate(w, start, r, note, notesz);
	}
	return m;
}

/* Main-socket steps: sends, the sentinel, every answer, the verdicts. */
static void step_sends(unsigned long step, struct rng *r, unsigned int nsends,
		       unsigned int per_send, int want, int recorded,
		       bool pristine)
{
	static char notes[4][512];
	struct unit units[64];
	const uint8_t *ubuf[64];
	const char *unote[64];
	unsigned int n = 0, s, k, got;
	struct state before, pred;
	struct collect c = { 0 };
	struct sock *sk = &S.main;
	struct sock inherited = { .fd = opt.root_fd };
	uint32_t sentinel = 0x80000000u | (uint32_t)step;
	bool set_config, inline_sentinel = false;
	struct timespec t0, t1;
	int fd, err;

	clock_gettime(CLOCK_MONOTONIC, &t0);

	if (opt.root_fd >= 0 && chance(r, 20)) {
		sk = &inherited;	/* opened by root: still refused */
		fig.inherited++;
	}
	fd = sk->fd;
	S.st.lease = lease_for(sk);
	S.st.dump_running = false;
	before = S.st;
	pred = S.st;
	for (s = 0; s < nsends; s++) {
		struct wbuf *w = &wb[s];

		w->p = sendbuf[s];
		w->len = 0;
		w->nattr = 0;
		notes[s][0] = 0;
		for (k = 0; k < per_send; k++) {
			char one[256];
			size_t l = strlen(notes[s]);

			msg_free(build(r, w, (uint32_t)(step * 64 + s * 8 + k + 1),
				       want, recorded, pristine, one,
				       sizeof(one)));
			snprintf(notes[s] + l, sizeof(notes[s]) - l, "%s%s",
				 k ? " | " : "", one);
		}
		oracle_send(w->p, w->len, opt.family, S.priv, &pred,
			    &units[n], &got, 64 - n);
		for (k = 0; k < got; k++) {
			ubuf[n + k] = w->p;
			unote[n + k] = notes[s];
		}
		n += got;
		/*
		 * The sentinel rides in the last send when netlink walks
		 * that send to its end (no length that drops the rest).
		 */
		if (s == nsends - 1 && got && units[n - 1].kind != U_DROPPED &&
		    units[n - 1].off + NLMSG_ALIGN(units[n - 1].len) >=
		    w->len) {
			struct nlmsghdr *h;

			memset(w->p + w->len, 0, NLMSG_ALIGN(w->len) - w->len);
			w->len = NLMSG_ALIGN(w->len);
			h = (struct nlmsghdr *)(w->p + w->len);
			memset(h, 0, sizeof(*h));
			h->nlmsg_len = NLMSG_HDRLEN;
			h->nlmsg_type = NLMSG_NOOP;
			h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
			h->nlmsg_seq = sentinel;
			w->len += NLMSG_HDRLEN;
			inline_sentinel = true;
		}
		err = nl_send(fd, w->p, w->len);
		fig.sends++;
		if (err) {
			/* Too large for the socket, say: nothing was sent. */
			for (k = n - got; k < n; k++)
				units[k].kind = U_DROPPED;
		}
	}
	c.units = units;
	c.nunits = n;
	c.sentinel = sentinel;
	c.timeout_ms = opt.timeout_ms;
	c.family = opt.family;
	if ((!inline_sentinel && nl_sentinel(fd, c.sentinel)) ||
	    nl_collect(fd, &c, NULL, NULL)) {
		finding(step, c.fail ? c.fail : "cannot send", n ? &units[0] : NULL,
			n ? ubuf[0] : NULL, -1, notes[0]);
		/* Start afresh: a new socket, the state read back. */
		if (sk == &S.main) {
			close_sock(&S.main);
			S.main.fd = open_main(r);
		}
		check_state(step, "after a failed exchange", true);
		return;
	}
	fig.dump_msgs += c.dump_msgs;
	fig.mcast_msgs += c.mcast_msgs;
	fig.stray += c.stray;
	if (c.mcast_msgs && S.priv != PRIV_ADMIN)
		finding(step, "a multicast message for a sender without the privilege",
			NULL, NULL, -1, NULL);
	set_config = judge(step, units, n, ubuf, unote, &before);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (n)
		fig.ns[units[0].cmd][units[0].dump] +=
			(t1.tv_sec - t0.tv_sec) * 1000000000LL +
			t1.tv_nsec - t0.tv_nsec;
	if (set_config && (S.priv == PRIV_ADMIN || !S.last_set_check ||
			   step - S.last_set_check >= opt.set_check_gap)) {
		check_state(step, "after SET_CONFIG", false);
		S.last_set_check = step;
	}
}

/* A dump on a fresh socket, read a little or not at all, then closed. */
static void step_abandon(unsigned long step, struct rng *r)
{
	static const uint8_t dumps[] = { T_STATUS_DUMP, T_CONFIG_DUMP,
					 T_STATS, T_EVENTS };
	struct wbuf *w = &wb[0];
	struct state pred = S.st;
	struct unit units[8];
	unsigned int n, reads = below(r, 4), i;
	char note[160];
	int fd = nl_open(chance(r, 50), chance(r, 50),
			 chance(r, 50) ? 0 : 2048 + below(r, 8192));

	if (fd < 0)
		return;
	w->p = sendbuf[0];
	w->len = 0;
	w->nattr = 0;
	msg_free(build(r, w, (uint32_t)step * 64 + 1, dumps[below(r, 4)], -1,
		       chance(r, 60), note, sizeof(note)));
	pred.lease = lease_for(&(struct sock){ .fd = fd });
	oracle_send(w->p, w->len, opt.family, S.priv, &pred, units, &n, 8);
	if (!nl_send(fd, w->p, w->len)) {
		for (i = 0; i < n; i++)
			tally(&units[i], -1);
		fig.sends++;
	}
	for (i = 0; i < reads; i++) {
		unsigned int data = 0;

		/* A dump's next part is made as the last one is read. */
		if (nl_read_one(fd, 2, opt.family, &data) < 0)
			break;
		fig.dump_msgs += data;
		if (data && S.priv != PRIV_ADMIN &&
		    (S.priv != PRIV_OBSERVE || n < 1 ||
		     units[0].cmd == HVTRACE_CMD_READ_EVENTS))
			finding(step, "dump data for a sender without the privilege",
				n ? &units[0] : NULL, w->p, 0, note);
	}
	close(fd);	/* the lease, if it took it, ends here */
	fig.abandoned++;
}

/* A dump on a socket that is never read; closed some steps later. */
static void step_stall(unsigned long step, struct rng *r)
{
	unsigned int slot = below(r, NR_STALLED), n, i;
	struct sock *s = &S.stalled[slot];
	struct wbuf *w = &wb[0];
	struct state pred;
	struct unit units[8];
	char note[160];
	enum lease was;

	close_sock(s);
	if (chance(r, 30))
		return;		/* just closed */
	s->fd = nl_open(true, true, 1024 + below(r, 4096));
	if (s->fd < 0)
		return;
	w->p = sendbuf[0];
	w->len = 0;
	w->nattr = 0;
	msg_free(build(r, w, (uint32_t)step * 64 + 1,
		       below(r, 2) ? T_EVENTS : below(r, 2) ? T_STATS :
		       T_STATUS_DUMP, -1, chance(r, 70), note, sizeof(note)));
	was = lease_for(s);
	pred = S.st;
	pred.lease = was;
	oracle_send(w->p, w->len, opt.family, S.priv, &pred, units, &n, 8);
	if (nl_send(s->fd, w->p, w->len))
		return;
	fig.sends++;
	for (i = 0; i < n; i++) {
		tally(&units[i], -1);
		/* Taken when the request gets that far, whatever follows. */
		if (S.priv == PRIV_ADMIN && units[i].kind == U_GENL &&
		    units[i].cmd == HVTRACE_CMD_READ_EVENTS &&
		    allowed(&units[i].allow, 0)) {
			if (was == LEASE_NONE && !units[i].uncertain)
				s->lease = true;
			else if (was != LEASE_OTHER)
				S.lease_unsure = true;
		}
	}
	fig.stalled++;
}

/* The expected answer to joining the events group. */
static bool join_ok_allowed(int res)
{
	switch (S.priv) {
	case PRIV_ADMIN:
		return res == 0;
	case PRIV_NETNS:	/* root elsewhere may join: nothing comes */
		return res == 0 || res == EPERM;
	default:
		return res == EPERM;
	}
}

static bool member_of(int fd, uint32_t group)
{
	uint32_t groups[64] = { 0 };
	socklen_t len = sizeof(groups);

	if (getsockopt(fd, SOL_NETLINK, NETLINK_LIST_MEMBERSHIPS, groups,
		       &len) < 0)
		return false;
	/* Group G is bit G - 1. */
	return group && (group - 1) / 32 < len / 4 &&
	       (groups[(group - 1) / 32] >> ((group - 1) % 32) & 1);
}

/* Join and leave the events group, and groups that do not exist. */
static void step_mcast(unsigned long step, struct rng *r)
{
	unsigned int ops = 2 + below(r, 10), i;
	bool side = chance(r, 40);
	int fd = side ? nl_open(true, true, 0) : S.main.fd;
	char d[160];

	if (fd < 0 || !opt.group)
		goto out;
	for (i = 0; i < ops; i++) {
		uint32_t g = opt.group;
		int res = 0, what = below(r, 10);

		if (what < 4) {		/* join */
			fig.joins++;
			res = setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
					 &g, sizeof(g)) ? errno : 0;
			if (!res)
				fig.joins_ok++;
			else if (res < 128)
				fig.join_err[res]++;
			if (!join_ok_allowed(res)) {
				snprintf(d, sizeof(d), "joining group %u: %s", g,
					 res ? strerrorname_np(res) : "joined");
				finding(step, "multicast join", NULL, NULL, -1, d);
			}
			if (member_of(fd, g) != !res) {
				snprintf(d, sizeof(d), "group %u: join said %s, membership %d",
					 g, res ? strerrorname_np(res) : "ok",
					 member_of(fd, g));
				finding(step, "multicast membership", NULL, NULL,
					-1, d);
			}
			if (!side && !res)
				S.main.mcast = true;
		} else if (what < 8) {	/* leave */
			fig.leaves++;
			res = setsockopt(fd, SOL_NETLINK, NETLINK_DROP_MEMBERSHIP,
					 &g, sizeof(g)) ? errno : 0;
			if (res || member_of(fd, g)) {
				snprintf(d, sizeof(d), "leaving group %u: %s", g,
					 res ? strerrorname_np(res) : "still a member");
				finding(step, "multicast leave", NULL, NULL, -1, d);
			}
			if (!side)
				S.main.mcast = false;
		} else if (what == 8) {	/* no such group */
			g = below(r, 2) ? 0 : 0xffffffff - below(r, 16);
			res = setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
					 &g, sizeof(g)) ? errno : 0;
			if (res != EINVAL && res != EPERM) {
				snprintf(d, sizeof(d), "joining group %u: %s", g,
					 res ? strerrorname_np(res) : "joined");
				finding(step, "multicast join of no group", NULL,
					NULL, -1, d);
			}
		} else if (side && g <= 32) {	/* bind(2) with a group mask */
			struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
						  .nl_groups = 1u << (g - 1) };

			fig.bind_joins++;
			res = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ?
			      errno : 0;
			if (!join_ok_allowed(res) && res != EINVAL) {
				snprintf(d, sizeof(d), "bind to group %u: %s", g,
					 res ? strerrorname_np(res) : "joined");
				finding(step, "multicast bind", NULL, NULL, -1, d);
			}
		}
	}
out:
	if (side && fd >= 0)
		close(fd);
}

static void sender_figures(double secs)
{
	unsigned int c, d, e;
	unsigned long other[2][3] = { { 0 } };

	printf("nlfuzz: %s sender, seed %llu: %lu messages in %lu sends, %.1f s\n",
	       opt.name, (unsigned long long)opt.seed, fig.sent, fig.sends, secs);
	printf("  accepted %lu, refused %lu, dropped by netlink %lu (bad length), acked only %lu (no request), answer not read %lu (dumps abandoned or never read)\n",
	       fig.accepted, fig.refused, fig.dropped, fig.ackonly, fig.unread);
	printf("  refused by errno:");
	for (e = 1; e < 128; e++)
		if (fig.err[e])
			printf(" %s %lu", strerrorname_np(e), fig.err[e]);
	printf("\n  per command            sent  accepted  refused  ms/step\n");
	for (c = 0; c < 256; c++)
		for (d = 0; d < 2; d++) {
			if (c > HVTRACE_CMD_MAX) {
				for (e = 0; e < 3; e++)
					other[d][e] += fig.cmd[c][d][e];
				continue;
			}
			if (!fig.cmd[c][d][0])
				continue;
			printf("    %-11s %-4s %8lu  %8lu %8lu  %7.2f\n", cmd_name(c),
			       d ? "dump" : "doit", fig.cmd[c][d][0],
			       fig.cmd[c][d][1], fig.cmd[c][d][2],
			       fig.ns[c][d] / 1e6 / fig.cmd[c][d][0]);
		}
	for (d = 0; d < 2; d++)
		if (other[d][0])
			printf("    %-11s %-4s %8lu  %8lu %8lu\n", "cmd > 13",
			       d ? "dump" : "doit", other[d][0], other[d][1],
			       other[d][2]);
	printf("  refused because (the oracle's reasons, the kernel agreeing):\n");
	for (;;) {
		unsigned int best = 0;

		for (c = 1; c < sizeof(whys) / sizeof(whys[0]); c++)
			if (whys[c].n > whys[best].n)
				best = c;
		if (!whys[best].n)
			break;
		printf("    %7lu  %s\n", whys[best].n, whys[best].why);
		whys[best].n = 0;
	}
	printf("  dump messages received %lu, multicast messages %lu, strays %lu\n",
	       fig.dump_msgs, fig.mcast_msgs, fig.stray);
	printf("  steps %lu: batches %lu, pipelines %lu, dumps abandoned %lu, never read %lu, new main sockets %lu, on a root-opened socket %lu\n",
	       fig.steps, fig.batches, fig.pipelines, fig.abandoned, fig.stalled,
	       fig.reopened, fig.inherited);
	printf("  events group: joins %lu (ok %lu", fig.joins, fig.joins_ok);
	for (e = 1; e < 128; e++)
		if (fig.join_err[e])
			printf(", %s %lu", strerrorname_np(e), fig.join_err[e]);
	printf("), leaves %lu, binds %lu\n", fig.leaves, fig.bind_joins);
	printf("  state checks %lu (%.1f s), other steps %.1f s, findings %lu\n",
	       fig.checks, fig.check_ns / 1e9, fig.side_ns / 1e9, fig.findings);
	printf("NLFUZZ sender=%s priv=%s seed=%llu sent=%lu accepted=%lu refused=%lu dropped=%lu acked=%lu unread=%lu dump_msgs=%lu checks=%lu findings=%lu\n",
	       opt.name, priv_names[S.priv], (unsigned long long)opt.seed,
	       fig.sent, fig.accepted, fig.refused, fig.dropped, fig.ackonly,
	       fig.unread, fig.dump_msgs, fig.checks, fig.findings);
}

static int run_sender(void)
{
	struct timespec t0, t1;
	unsigned long step = 0, replay;
	unsigned long long t;
	uint16_t fam;
	uint32_t grp;
	unsigned int i;
	int err;

	S.priv = my_priv();
	if (!opt.name)
		opt.name = priv_names[S.priv];
	if (opt.expect && strcmp(opt.expect, priv_names[S.priv])) {
		fprintf(stderr, "nlfuzz: expected to run as '%s', runs as '%s'\n",
			opt.expect, priv_names[S.priv]);
		return 2;
	}
	S.main.fd = nl_open(true, true, 1 << 20);
	S.ctl = -1;
	for (i = 0; i < NR_STALLED; i++)
		S.stalled[i].fd = -1;
	if (S.main.fd < 0) {
		fprintf(stderr, "nlfuzz: socket: %s\n", strerror(-S.main.fd));
		return 2;
	}
	/* The family: there in the initial namespace only. */
	err = nl_resolve(S.main.fd, &fam, &grp);
	if (S.priv == PRIV_NETNS ? err != -ENOENT :
	    err || fam != opt.family || grp != opt.group) {
		char d[128];

		snprintf(d, sizeof(d), "resolving the family: %s, id %u (want %s)",
			 err ? strerror(-err) : "found", fam,
			 S.priv == PRIV_NETNS ? "ENOENT" : "the initial one");
		finding(0, "family resolution", NULL, NULL, -1, d);
	}
	if (opt.corpus) {
		err = corpus_load(opt.corpus, opt.family);
		if (err) {
			fprintf(stderr, "nlfuzz: corpus %s: %s\n", opt.corpus,
				strerror(-err));
			return 2;
		}
	}
	if (S.priv == PRIV_ADMIN) {
		struct status_snap st0;

		/* Whatever the module does now is the starting point. */
		S.ctl = nl_open(true, true, 1 << 20);
		if (S.ctl < 0 || fetch_status(S.ctl, opt.family, &ctl_seq, &st0,
					      opt.timeout_ms)) {
			fprintf(stderr, "nlfuzz: cannot read the status\n");
			return 2;
		}
		S.st.recording = st0.recording;
		S.lease_unsure = st0.reader;
	}
	printf("nlfuzz: %s sender (%s), pid %d: family %u, events group %u, %u recorded messages, %u possible CPUs, cpumask %u bytes\n",
	       opt.name, priv_names[S.priv], getpid(), opt.family, opt.group,
	       corpus_size(), host.nr_cpu_ids, host.cpumask_bytes);
	fflush(stdout);
	check_state(0, "at the start", true);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* First every template as it is: the recorded ones, then each command. */
	replay = corpus_size() + NR_TCLASS;
	while (fig.sent < opt.count) {
		struct rng r = { opt.seed * 0x2545f4914f6cdd1dULL ^
				 (step + 1) * 0x9e3779b97f4a7c15ULL };
		unsigned int kind = below(&r, 1000);

		rnd(&r);
		fig.steps++;
		if (step < replay) {
			/* Each recorded message, then each kind built in. */
			step_sends(step, &r, 1, 1, step < corpus_size() ? -1 :
				   (int)(step - corpus_size()),
				   step < corpus_size() ? (int)step : -1, true);
		} else if (kind < 800) {
			step_sends(step, &r, 1, 1, -1, -1, false);
		} else if (kind < 860) {
			step_sends(step, &r, 1, 2 + below(&r, 3), -1, -1, false);
			fig.batches++;
		} else if (kind < 900) {
			step_sends(step, &r, 2 + below(&r, 2), 1, -1, -1, false);
			fig.pipelines++;
		} else if (kind < 930) {
			t = now_ns();
			step_abandon(step, &r);
			fig.side_ns += now_ns() - t;
		} else if (kind < 945) {
			t = now_ns();
			step_stall(step, &r);
			fig.side_ns += now_ns() - t;
		} else if (kind < 985) {
			t = now_ns();
			step_mcast(step, &r);
			fig.side_ns += now_ns() - t;
		} else {
			close_sock(&S.main);
			S.main.fd = open_main(&r);
			fig.reopened++;
			if (S.main.fd < 0) {
				fprintf(stderr, "nlfuzz: socket: %s\n",
					strerror(-S.main.fd));
				return 2;
			}
		}
		if (opt.check_every && step % opt.check_every == 0)
			check_state(step, "periodically", true);
		if (opt.verbose && step % 1000 == 0) {
			printf("  step %lu: %lu messages, %lu findings\n", step,
			       fig.sent, fig.findings);
			fflush(stdout);
		}
		step++;
	}
	/* Close everything: ownership of the buffers must end with it. */
	for (i = 0; i < NR_STALLED; i++)
		close_sock(&S.stalled[i]);
	close_sock(&S.main);
	if (S.priv == PRIV_ADMIN) {
		/* A dump's end on a closed socket comes later (RCU, work). */
		usleep(500000);
		S.lease_unsure = false;
		admin_check(step, "after closing every socket", true);
	} else {
		check_state(step, "at the end", true);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sender_figures(t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return fig.findings ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nlfuzz [--seed N] [--count N] [--corpus FILE] [--timeout-ms N]\n"
		"              [--check-every N] [--set-check-gap N]\n"
		"              [--expect admin|observe|none|netns]\n"
		"              [--name NAME] [--verbose] [-- WRAPPER ARGS...]\n"
		"Sends N random and mutated messages to the hvtrace family and checks\n"
		"every answer; with a wrapper (setpriv, unshare) as the sender it makes.\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "corpus", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "check-every", required_argument, NULL, 'k' },
		{ "set-check-gap", required_argument, NULL, 'g' },
		{ "expect", required_argument, NULL, 'e' },
		{ "name", required_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "child", required_argument, NULL, 'C' },
		{ "family", required_argument, NULL, 'F' },
		{ "group", required_argument, NULL, 'G' },
		{ "init-ns", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int o, ctl, req[2], resp[2], err;
	char **wrap = NULL;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (o) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); break;
		case 'n': opt.count = strtoul(optarg, NULL, 0); break;
		case 'c': opt.corpus = optarg; break;
		case 't': opt.timeout_ms = atoi(optarg); break;
		case 'k': opt.check_every = strtoul(optarg, NULL, 0); break;
		case 'g': opt.set_check_gap = strtoul(optarg, NULL, 0); break;
		case 'e': opt.expect = optarg; break;
		case 'N': opt.name = optarg; break;
		case 'v': opt.verbose = true; break;
		case 'C':
			opt.child = true;
			if (sscanf(optarg, "%d,%d,%d", &opt.req_fd, &opt.resp_fd,
				   &opt.root_fd) != 3) {
				usage(stderr);
				return 2;
			}
			break;
		case 'F': opt.family = atoi(optarg); break;
		case 'G': opt.group = strtoul(optarg, NULL, 0); break;
		case 'I':
			if (sscanf(optarg, "%lu,%lu", &opt.init_netns,
				   &opt.init_userns) != 2) {
				usage(stderr);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		wrap = &argv[optind];
	host_facts();
	oracle_init();
	if (opt.child)
		return run_sender();

	/* Run from the initial namespaces, as root: resolve the family. */
	opt.init_netns = ns_ino("/proc/1/ns/net");
	opt.init_userns = ns_ino("/proc/1/ns/user");
	if (!opt.init_netns)
		opt.init_netns = ns_ino("/proc/self/ns/net");
	if (!opt.init_userns)
		opt.init_userns = ns_ino("/proc/self/ns/user");
	ctl = nl_open(true, true, 1 << 20);
	if (ctl < 0 || (err = nl_resolve(ctl, &opt.family, &opt.group))) {
		fprintf(stderr, "nlfuzz: the hvtrace family is not there (%s): modprobe hvtrace\n",
			strerror(ctl < 0 ? -ctl : -err));
		return 2;
	}
	if (!wrap)
		return run_sender();

	if (pipe(req) || pipe(resp)) {
		perror("nlfuzz: pipe");
		return 2;
	}
	opt.root_fd = nl_open(true, true, 1 << 20);
	pid = fork();
	if (pid < 0) {
		perror("nlfuzz: fork");
		return 2;
	}
	if (!pid) {
		char fds[64], ns[64], fam[16], grp[16], seed[32], count[32],
		     tmo[16], every[16], gap[16], self[4096];
		const char *args[64];
		int n = 0, i;
		ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (l < 0) {
			perror("nlfuzz: /proc/self/exe");
			_exit(2);
		}
		self[l] = 0;
		close(req[0]);
		close(resp[1]);
		close(ctl);
		/* The root-opened socket only for senders of the initial
		 * network namespace: elsewhere it would be root's, there.
		 */
		for (i = 0; wrap[i]; i++)
			if (!strcmp(wrap[i], "--net") || !strcmp(wrap[i], "-n") ||
			    !strncmp(wrap[i], "--net=", 6))
				break;
		if (!wrap[i])
			fcntl(opt.root_fd, F_SETFD, 0);
		else
			opt.root_fd = -1;
		snprintf(fds, sizeof(fds), "%d,%d,%d", req[1], resp[0],
			 opt.root_fd);
		snprintf(ns, sizeof(ns), "%lu,%lu", opt.init_netns,
			 opt.init_userns);
		snprintf(fam, sizeof(fam), "%u", opt.family);
		snprintf(grp, sizeof(grp), "%u", opt.group);
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)opt.seed);
		snprintf(count, sizeof(count), "%lu", opt.count);
		snprintf(tmo, sizeof(tmo), "%d", opt.timeout_ms);
		snprintf(every, sizeof(every), "%u", opt.check_every);
		snprintf(gap, sizeof(gap), "%u", opt.set_check_gap);
		for (i = 0; wrap[i] && n < 40; i++)
			args[n++] = wrap[i];
		args[n++] = self;
		args[n++] = "--child"; args[n++] = fds;
		args[n++] = "--init-ns"; args[n++] = ns;
		args[n++] = "--family"; args[n++] = fam;
		args[n++] = "--group"; args[n++] = grp;
		args[n++] = "--seed"; args[n++] = seed;
		args[n++] = "--count"; args[n++] = count;
		args[n++] = "--timeout-ms"; args[n++] = tmo;
		args[n++] = "--check-every"; args[n++] = every;
		args[n++] = "--set-check-gap"; args[n++] = gap;
		if (opt.corpus) {
			args[n++] = "--corpus";
			args[n++] = opt.corpus;
		}
		if (opt.expect) {
			args[n++] = "--expect";
			args[n++] = opt.expect;
		}
		if (opt.name) {
			args[n++] = "--name";
			args[n++] = opt.name;
		}
		if (opt.verbose)
			args[n++] = "--verbose";
		args[n] = NULL;
		execvp(args[0], (char **)args);
		perror("nlfuzz: exec");
		_exit(2);
	}
	close(req[1]);
	close(resp[0]);
	close(opt.root_fd);
	return supervise(ctl, pid, req[0], resp[1]);
}
