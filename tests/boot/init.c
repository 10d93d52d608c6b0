// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the workload boot test: runs, on several CPUs at once, the
 * kernel paths whose control dependencies volatile_if() converts, checks
 * what user space can see of them, prints one line per workload and
 * ends the machine.
 *
 *   volatile-if-workload: <name> ok iterations=<n> ms=<duration>
 *   volatile-if-workload: <name> FAIL <reason>
 *   volatile-if-workload: done <k> ok <m> failed
 *
 * tool/volatile_if/workload.py builds it (gcc -static -O2 -pthread), packs
 * it as /init and reads these lines back; its WORKLOADS must list the names
 * of workloads[] below, in order.  A workload that hangs is reported by a
 * watchdog thread, which then ends the machine: the test sees a FAIL line,
 * not a QEMU timeout.
 *
 * The machine ends with a reboot, which QEMU -no-reboot turns into an exit
 * (as kunit.py's kunit_shutdown=reboot does): RB_POWER_OFF would halt the
 * x86_64 kernel for good, since without PCI its ACPI tables do not load
 * and it has no way to power off.
 *
 * Kernel command-line options without a dot reach init as environment:
 * vif_watchdog=<seconds> per workload (default 60), vif_scale=<n> to
 * multiply every iteration count (default 1).
 *
 * Not PID 1 (run by hand on a development machine), it mounts nothing,
 * reboots nothing and exits 0 when all passed.
 *
 * Netfilter conntrack is not exercised: qemu.config has neither INET nor
 * NF_CONNTRACK, and driving it would need nft in the initramfs.  No line is
 * printed for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/reboot.h>
#include <sys/sem.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "volatile-if-workload: "
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int ncpu;
static long scale = 1;
static long page;
static int am_init;

/* ---------------------------------------------------------------------
 * Output, failures, the current workload.
 */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* One write() per line: kernel messages on the console may come between
 * lines, not inside them. */
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	pthread_mutex_lock(&out_lock);
	n = write(1, buf, n);	/* nowhere to report a failure */
	pthread_mutex_unlock(&out_lock);
}

/* What the checks saw, for whoever reads the console log. */
#define info(fmt, ...) say("volatile-if-info: %s: " fmt, cur.name, __VA_ARGS__)

struct wl {
	const char *name;
	long iterations;
	int failed;
	char reason[200];
};

static struct wl cur;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

/* The first failure of the current workload is its reason; later ones are
 * usually consequences. */
static void fail(const char *fmt, ...)
{
	va_list ap;
	char *p;

	pthread_mutex_lock(&fail_lock);
	if (!cur.failed) {
		va_start(ap, fmt);
		vsnprintf(cur.reason, sizeof(cur.reason), fmt, ap);
		va_end(ap);
		for (p = cur.reason; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		cur.failed = 1;
	}
	pthread_mutex_unlock(&fail_lock);
}

static int failed(void)
{
	return __atomic_load_n(&cur.failed, __ATOMIC_RELAXED);
}

static void add_iterations(long n)
{
	__atomic_fetch_add(&cur.iterations, n, __ATOMIC_RELAXED);
}

static int nr_ok, nr_failed;

static void end(void)
{
	sync();
	if (am_init) {
		reboot(RB_AUTOBOOT);
		/* Only reached if reboot() failed: init must not exit. */
		for (;;)
			pause();
	}
	exit(nr_failed ? 1 : 0);
}

static void done_and_end(void)
{
	say(PREFIX "done %d ok %d failed", nr_ok, nr_failed);
	end();
}

/* Setup that cannot fail in a working kernel and without which the test
 * cannot go on. */
static void fatal(const char *what, int err)
{
	say(PREFIX "%s FAIL %s: %s", cur.name, what, strerror(err));
	nr_failed++;
	done_and_end();
}

/* ---------------------------------------------------------------------
 * Time, threads, CPUs, processes.
 */

static double now_ms(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Milliseconds since *@t, which becomes now: the time of a phase. */
static double lap(double *t)
{
	double then = *t;

	*t = now_ms(CLOCK_MONOTONIC);
	return *t - then;
}

static struct timespec after_ms(clockid_t clock, double ms)
{
	struct timespec t;
	long ns;

	clock_gettime(clock, &t);
	ns = t.tv_nsec + (long)(ms * 1e6);
	t.tv_sec += ns / 1000000000;
	t.tv_nsec = ns % 1000000000;
	return t;
}

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(t, NULL, fn, arg);

	if (err)
		fatal("pthread_create", err);
}

static void join(pthread_t t)
{
	pthread_join(t, NULL);
}

/* Run the calling thread on @cpu (modulo the CPUs there are); the
 * migration is done when sched_setaffinity() returns. */
static void pin(int cpu)
{
	cpu_set_t set;

	cpu %= ncpu;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("sched_setaffinity(CPU %d): %s", cpu, strerror(errno));
	else if (sched_getcpu() != cpu)
		fail("pinned to CPU %d, running on %d", cpu, sched_getcpu());
}

/* Run @fn in a child process, its failure and iterations counted here.
 * For what init itself must not do: the kernel logs every SIGSEGV of init,
 * handled or not.  Only the calling thread is in the child: call it when
 * no other thread (but the sleeping watchdog) can hold a lock. */
static void in_child(void (*fn)(void))
{
	struct wl *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (shared == MAP_FAILED)
		fatal("mmap", errno);
	pid = fork();
	if (pid < 0)
		fatal("fork", errno);
	if (pid == 0) {
		am_init = 0;	/* a fatal() here must not end the machine */
		cur.iterations = 0;
		fn();
		*shared = cur;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		fail("waitpid: %s", strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("child died (wait status %#x)", status);
	else if (shared->failed)
		fail("%s", shared->reason);
	add_iterations(shared->iterations);
	munmap(shared, sizeof(*shared));
}

static unsigned int rnd(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

static void spin(unsigned int n)
{
	while (n--)
		__asm__ __volatile__("" ::: "memory");
}

static pid_t gettid_(void)
{
	return syscall(SYS_gettid);
}

/* Wait until thread *@tid (0 until it is known) sleeps: a waiter must be
 * asleep before the test wakes it, not still on its way. */
static void wait_sleeping(const int *tid)
{
	char path[64], buf[512], *p;
	int fd, n;

	while (!__atomic_load_n(tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", *tid);
	for (;;) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return fail("reading %s: %s", path, strerror(errno));
		buf[n] = 0;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

/* ---------------------------------------------------------------------
 * The watchdog: one thread, armed for each workload.
 */

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond;
static long wd_seconds = 60;
static unsigned long wd_generation;	/* odd while a workload runs */

static void *watchdog(void *unused)
{
	unsigned long gen;
	struct timespec deadline;

	pthread_mutex_lock(&wd_lock);
	for (;;) {
		while (!(wd_generation & 1))
			pthread_cond_wait(&wd_cond, &wd_lock);
		gen = wd_generation;
		deadline = after_ms(CLOCK_MONOTONIC, wd_seconds * 1e3);
		while (wd_generation == gen &&
		       pthread_cond_timedwait(&wd_cond, &wd_lock, &deadline) != ETIMEDOUT)
			;
		if (wd_generation == gen)
			break;
	}
	/* A failing thread may have left the others waiting: say why. */
	say(PREFIX "%s FAIL timed out after %ld s (watchdog)%s%s", cur.name,
	    wd_seconds, cur.failed ? " after: " : "", cur.failed ? cur.reason : "");
	nr_failed++;
	done_and_end();
	return unused;
}

static void watchdog_start(void)
{
	pthread_condattr_t attr;
	pthread_t t;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wd_cond, &attr);
	spawn(&t, watchdog, NULL);
}

static void watchdog_arm(int on)
{
	pthread_mutex_lock(&wd_lock);
	if (on != (int)(wd_generation & 1))
		wd_generation++;
	pthread_cond_signal(&wd_cond);
	pthread_mutex_unlock(&wd_lock);
}

/* ---------------------------------------------------------------------
 * sysv-msg: ipc/msg.c do_msgrcv().  Receivers sleep in msgrcv() and are
 * handed messages by msgsnd() on other CPUs (pipelined_send(), the lockless
 * r_msg hand-over), then by IPC_RMID (-EIDRM the same way).
 */

#define MSG_SENDERS 2
#define MSG_RECEIVERS 3
#define MSG_PER_SENDER (200 * scale)
#define MSG_DATA 1
#define MSG_STOP 2

struct vmsg {
	long mtype;
	unsigned int sender, seq;
	unsigned char data[120];
};

static int msg_q;
static unsigned char *msg_seen;

static size_t msg_size(unsigned int seq)
{
	return 8 + seq % 113;
}

static unsigned char msg_byte(unsigned int sender, unsigned int seq, int i)
{
	return sender * 131 + seq * 7 + i;
}

static void *msg_sender(void *arg)
{
	unsigned int sender = (long)arg, seq;
	struct vmsg m;
	size_t i;

	for (seq = 0; seq < MSG_PER_SENDER && !failed(); seq++) {
		m.mtype = MSG_DATA;
		m.sender = sender;
		m.seq = seq;
		for (i = 0; i < msg_size(seq) - 8; i++)
			m.data[i] = msg_byte(sender, seq, i);
		if (msgsnd(msg_q, &m, msg_size(seq), 0)) {
			fail("msgsnd: %s", strerror(errno));
			break;
		}
	}
	return NULL;
}

static void *msg_receiver(void *arg)
{
	struct vmsg m;
	ssize_t n;
	size_t i;

	for (;;) {
		n = msgrcv(msg_q, &m, sizeof(m) - sizeof(long), 0, 0);
		if (n < 0) {
			fail("msgrcv: %s", strerror(errno));
			break;
		}
		if (m.mtype == MSG_STOP)
			break;
		if (m.mtype != MSG_DATA || m.sender >= MSG_SENDERS ||
		    m.seq >= MSG_PER_SENDER || (size_t)n != msg_size(m.seq)) {
			fail("bad message: type %ld sender %u seq %u size %zd",
			     m.mtype, m.sender, m.seq, n);
			continue;
		}
		for (i = 0; i < (size_t)n - 8; i++)
			if (m.data[i] != msg_byte(m.sender, m.seq, i))
				fail("message %u/%u: byte %zu corrupted",
				     m.sender, m.seq, i);
		if (__atomic_fetch_add(&msg_seen[m.sender * MSG_PER_SENDER + m.seq],
				       1, __ATOMIC_RELAXED))
			fail("message %u/%u received twice", m.sender, m.seq);
		add_iterations(1);
	}
	return arg;
}

static void *msg_rmid_waiter(void *arg)
{
	struct vmsg m;

	__atomic_store_n((int *)arg, gettid_(), __ATOMIC_RELEASE);
	if (msgrcv(msg_q, &m, sizeof(m) - sizeof(long), 0, 0) >= 0)
		fail("msgrcv on a queue being removed returned a message");
	else if (errno != EIDRM)
		fail("msgrcv on a removed queue: %s, not EIDRM", strerror(errno));
	return arg;
}

static void sysv_msg(void)
{
	pthread_t s[MSG_SENDERS], r[MSG_RECEIVERS], w[2];
	struct msqid_ds ds;
	struct vmsg m;
	int tid[2] = { 0 };
	long i;

	msg_q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (msg_q < 0)
		return fail("msgget: %s", strerror(errno));
	msg_seen = calloc(MSG_SENDERS * MSG_PER_SENDER, 1);
	for (i = 0; i < MSG_RECEIVERS; i++)
		spawn(&r[i], msg_receiver, NULL);
	for (i = 0; i < MSG_SENDERS; i++)
		spawn(&s[i], msg_sender, (void *)i);
	for (i = 0; i < MSG_SENDERS; i++)
		join(s[i]);
	/* msgtyp 0 is FIFO: a receiver gets a stop only after every data
	 * message has been taken, and each gets exactly one. */
	m.mtype = MSG_STOP;
	for (i = 0; i < MSG_RECEIVERS; i++)
		if (msgsnd(msg_q, &m, 8, 0))
			fail("msgsnd(stop): %s", strerror(errno));
	for (i = 0; i < MSG_RECEIVERS; i++)
		join(r[i]);
	for (i = 0; i < MSG_SENDERS * MSG_PER_SENDER && !failed(); i++)
		if (msg_seen[i] != 1)
			fail("message %ld/%ld received %d times", i / MSG_PER_SENDER,
			     i % MSG_PER_SENDER, msg_seen[i]);
	if (msgrcv(msg_q, &m, sizeof(m) - sizeof(long), 0, IPC_NOWAIT) >= 0 ||
	    errno != ENOMSG)
		fail("msgrcv(IPC_NOWAIT) on an empty queue: not ENOMSG");
	if (msgctl(msg_q, IPC_STAT, &ds) || ds.msg_qnum)
		fail("IPC_STAT: %lu messages left", (unsigned long)ds.msg_qnum);
	for (i = 0; i < 2; i++)
		spawn(&w[i], msg_rmid_waiter, &tid[i]);
	for (i = 0; i < 2; i++)
		wait_sleeping(&tid[i]);
	if (msgctl(msg_q, IPC_RMID, NULL))
		fail("IPC_RMID: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		join(w[i]);
	free(msg_seen);
}

/* ---------------------------------------------------------------------
 * posix-mq: ipc/mqueue.c wq_sleep().  Receivers and senders sleep on a
 * small queue and are woken by the other side (pipelined_send() and
 * pipelined_receive(), the lockless STATE_READY hand-over); timeouts must
 * expire; and a message that arrives as a receiver times out must be
 * received or left in the queue, never lost.
 */

#define MQ_PRODUCERS 2
#define MQ_CONSUMERS 3
#define MQ_PER_PRODUCER (150 * scale)
#define MQ_TIMEOUTS (8 * scale)		/* per thread */
#define MQ_RACE (100 * scale)
#define MQ_MSGSIZE 64

static mqd_t mq;
static unsigned char *mq_seen;
static int mq_stop;
static long mq_race_received, mq_race_timeouts;

struct mq_msg {
	unsigned int producer, seq;
	unsigned char data[MQ_MSGSIZE - 8];
};

static unsigned int mq_prio(unsigned int seq)
{
	return 1 + seq % 7;
}

static void *mq_producer(void *arg)
{
	unsigned int producer = (long)arg, seq;
	struct mq_msg m;

	for (seq = 0; seq < MQ_PER_PRODUCER && !failed(); seq++) {
		m.producer = producer;
		m.seq = seq;
		memset(m.data, producer + seq, sizeof(m.data));
		if (mq_send(mq, (char *)&m, sizeof(m), mq_prio(seq))) {
			fail("mq_send: %s", strerror(errno));
			break;
		}
	}
	return NULL;
}

/* Returns 1 for a data message, 0 for a stop, -1 on error; @prio < 0:
 * not checked. */
static int mq_check(const struct mq_msg *m, ssize_t n, int prio,
		    unsigned char *seen, unsigned int producers, unsigned int per)
{
	size_t i;

	if (n == 1)
		return 0;
	if (n != sizeof(*m) || m->producer >= producers || m->seq >= per ||
	    (prio >= 0 && (unsigned int)prio != mq_prio(m->seq))) {
		fail("bad message: size %zd producer %u seq %u prio %d",
		     n, m->producer, m->seq, prio);
		return -1;
	}
	for (i = 0; i < sizeof(m->data); i++)
		if (m->data[i] != (unsigned char)(m->producer + m->seq)) {
			fail("message %u/%u corrupted", m->producer, m->seq);
			return -1;
		}
	if (__atomic_fetch_add(&seen[m->producer * per + m->seq], 1, __ATOMIC_RELAXED))
		fail("message %u/%u received twice", m->producer, m->seq);
	return 1;
}

static void *mq_consumer(void *arg)
{
	int timed = (long)arg & 1;
	struct timespec deadline;
	struct mq_msg m;
	unsigned int prio;
	ssize_t n;

	for (;;) {
		if (timed) {
			/* Far: producers are running, it must not expire. */
			deadline = after_ms(CLOCK_REALTIME, 30000);
			n = mq_timedreceive(mq, (char *)&m, sizeof(m), &prio, &deadline);
		} else {
			n = mq_receive(mq, (char *)&m, sizeof(m), &prio);
		}
		if (n < 0) {
			fail("mq_%sreceive: %s", timed ? "timed" : "", strerror(errno));
			break;
		}
		if (mq_check(&m, n, prio, mq_seen, MQ_PRODUCERS, MQ_PER_PRODUCER) <= 0)
			break;
		add_iterations(1);
	}
	return NULL;
}

/* Every timed wait on an empty (or full) queue must end in ETIMEDOUT, and
 * not before its deadline. */
static void *mq_timeouts(void *arg)
{
	struct timespec deadline;
	struct mq_msg m;
	double end;
	long i;
	int r;

	for (i = 0; i < MQ_TIMEOUTS && !failed(); i++) {
		deadline = after_ms(CLOCK_REALTIME, 2 + i % 3);
		end = deadline.tv_sec * 1e3 + deadline.tv_nsec / 1e6;
		if (arg)
			r = mq_timedsend(mq, (char *)&m, sizeof(m), 1, &deadline);
		else
			r = mq_timedreceive(mq, (char *)&m, sizeof(m), NULL, &deadline);
		if (r >= 0 || errno != ETIMEDOUT)
			fail("mq_timed%s on a%s queue: %s, not ETIMEDOUT",
			     arg ? "send" : "receive", arg ? " full" : "n empty",
			     r >= 0 ? "success" : strerror(errno));
		else if (now_ms(CLOCK_REALTIME) < end)
			fail("mq_timed%s returned ETIMEDOUT before its deadline",
			     arg ? "send" : "receive");
		add_iterations(1);
	}
	return NULL;
}

static void *mq_race_receiver(void *arg)
{
	struct timespec deadline;
	struct mq_msg m;
	ssize_t n;

	for (;;) {
		int stop = __atomic_load_n(&mq_stop, __ATOMIC_ACQUIRE);

		deadline = after_ms(CLOCK_REALTIME, 1);
		n = mq_timedreceive(mq, (char *)&m, sizeof(m), NULL, &deadline);
		if (n >= 0) {
			if (mq_check(&m, n, -1, arg, 1, MQ_RACE) < 0)
				break;
			__atomic_fetch_add(&mq_race_received, 1, __ATOMIC_RELAXED);
		} else if (errno != ETIMEDOUT) {
			fail("mq_timedreceive: %s", strerror(errno));
			break;
		} else if (__atomic_fetch_add(&mq_race_timeouts, 1, __ATOMIC_RELAXED), stop) {
			break;
		}
	}
	return NULL;
}

static mqd_t mq_make(const char *name, long maxmsg)
{
	struct mq_attr attr = { .mq_maxmsg = maxmsg, .mq_msgsize = MQ_MSGSIZE };
	mqd_t q;

	mq_unlink(name);
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
	if (q == (mqd_t)-1)
		fatal("mq_open", errno);
	return q;
}

static void posix_mq(void)
{
	static const char name[] = "/volatile-if-workload";
	pthread_t p[MQ_PRODUCERS], c[MQ_CONSUMERS], t[8];
	struct mq_attr attr = { .mq_flags = O_NONBLOCK };
	double t0 = now_ms(CLOCK_MONOTONIC), ms[3];
	unsigned int seed = 1, k;
	unsigned char *race_seen;
	struct mq_msg m;
	long i, left = 0;
	int nt = ncpu < 4 ? 4 : ncpu;

	/* Sleeping both ways: 4 slots for 2 producers and 3 consumers. */
	mq = mq_make(name, 4);
	mq_seen = calloc(MQ_PRODUCERS * MQ_PER_PRODUCER, 1);
	for (i = 0; i < MQ_CONSUMERS; i++)
		spawn(&c[i], mq_consumer, (void *)i);
	for (i = 0; i < MQ_PRODUCERS; i++)
		spawn(&p[i], mq_producer, (void *)i);
	for (i = 0; i < MQ_PRODUCERS; i++)
		join(p[i]);
	/* Priority 0 is below every data message: stops come out last. */
	for (i = 0; i < MQ_CONSUMERS; i++)
		if (mq_send(mq, "", 1, 0))
			fail("mq_send(stop): %s", strerror(errno));
	for (i = 0; i < MQ_CONSUMERS; i++)
		join(c[i]);
	for (i = 0; i < MQ_PRODUCERS * MQ_PER_PRODUCER && !failed(); i++)
		if (mq_seen[i] != 1)
			fail("message %ld/%ld received %d times", i / MQ_PER_PRODUCER,
			     i % MQ_PER_PRODUCER, mq_seen[i]);
	free(mq_seen);
	ms[0] = lap(&t0);

	/* Timeouts: receivers on the empty queue, then senders on a full one. */
	for (i = 0; i < nt; i++)
		spawn(&t[i], mq_timeouts, NULL);
	for (i = 0; i < nt; i++)
		join(t[i]);
	memset(&m, 0, sizeof(m));
	for (i = 0; i < 4; i++)
		if (mq_send(mq, (char *)&m, sizeof(m), 1))
			fail("mq_send: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		spawn(&t[i], mq_timeouts, (void *)1);
	for (i = 0; i < 2; i++)
		join(t[i]);
	mq_close(mq);
	mq_unlink(name);
	ms[1] = lap(&t0);

	/* Wake-ups racing with 1 ms timeouts. */
	mq = mq_make(name, 8);
	race_seen = calloc(MQ_RACE, 1);
	mq_stop = 0;
	mq_race_received = mq_race_timeouts = 0;
	for (i = 0; i < MQ_CONSUMERS; i++)
		spawn(&c[i], mq_race_receiver, race_seen);
	for (i = 0; i < MQ_RACE && !failed(); i++) {
		m.producer = 0;
		m.seq = i;
		memset(m.data, i, sizeof(m.data));
		if (mq_send(mq, (char *)&m, sizeof(m), 1))
			fail("mq_send: %s", strerror(errno));
		for (k = rnd(&seed) % 4; k; k--)
			sched_yield();
		if (rnd(&seed) % 16 == 0)
			usleep(rnd(&seed) % 3000);
	}
	__atomic_store_n(&mq_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < MQ_CONSUMERS; i++)
		join(c[i]);
	mq_setattr(mq, &attr, NULL);
	while (mq_receive(mq, (char *)&m, sizeof(m), NULL) >= 0)
		if (mq_check(&m, sizeof(m), -1, race_seen, 1, MQ_RACE) > 0)
			left++;
	if (errno != EAGAIN)
		fail("draining the queue: %s", strerror(errno));
	ms[2] = lap(&t0);
	info("%ld messages raced with 1 ms timeouts: %ld received, %ld left, %ld "
	     "timeouts; wake-ups %.0f ms, timeouts %.0f ms, race %.0f ms",
	     (long)MQ_RACE, mq_race_received, left, mq_race_timeouts,
	     ms[0], ms[1], ms[2]);
	if (!failed() && mq_race_received + left != MQ_RACE)
		fail("%ld messages sent, %ld received and %ld left in the queue",
		     (long)MQ_RACE, mq_race_received, left);
	add_iterations(MQ_RACE);
	free(race_seen);
	mq_close(mq);
	mq_unlink(name);
}

/* ---------------------------------------------------------------------
 * sysv-sem: ipc/sem.c do_semtimedop().  Simple (one sop) and complex (two
 * sops) waiters woken by semop() on other CPUs, the lockless queue.status
 * hand-over; timeouts that must expire with EAGAIN; timeouts racing with
 * wake-ups, where no post may be lost; IPC_RMID waking sleepers.
 */

#define SEM_POSTS (400 * scale)	/* per semaphore */
#define SEM_TIMEOUTS (8 * scale)	/* per thread */
#define SEM_RACE (100 * scale)

static int sem_id;
static int sem_stop;
static long sem_race_taken, sem_race_timeouts;

struct sem_job {
	unsigned short num[2];
	int nsops;
	short op;
	long times;
};

static void *sem_worker(void *arg)
{
	struct sem_job *j = arg;
	struct sembuf sops[2];
	long i;
	int k;

	for (i = 0; i < j->times && !failed(); i++) {
		for (k = 0; k < j->nsops; k++)
			sops[k] = (struct sembuf){ j->num[k], j->op, 0 };
		if (semop(sem_id, sops, j->nsops)) {
			fail("semop(%d sops, %+d): %s", j->nsops, j->op, strerror(errno));
			break;
		}
		if (j->op < 0)
			add_iterations(1);
	}
	return NULL;
}

static void *sem_timeouts(void *arg)
{
	struct sembuf sop = { 0, -1, 0 };
	struct timespec timeout = { 0, 0 };
	double start;
	long i;

	for (i = 0; i < SEM_TIMEOUTS && !failed(); i++) {
		timeout.tv_nsec = (2 + i % 3) * 1000000;
		start = now_ms(CLOCK_MONOTONIC);
		if (semtimedop(sem_id, &sop, 1, &timeout) == 0 || errno != EAGAIN)
			fail("semtimedop on a zero semaphore: %s, not EAGAIN",
			     errno == EAGAIN ? "success" : strerror(errno));
		else if (now_ms(CLOCK_MONOTONIC) - start < timeout.tv_nsec / 1e6)
			fail("semtimedop returned EAGAIN before its timeout");
		add_iterations(1);
	}
	return arg;
}

static void *sem_race_waiter(void *arg)
{
	struct sembuf sop = { 1, -1, 0 };
	struct timespec timeout = { 0, 1000000 };

	for (;;) {
		int stop = __atomic_load_n(&sem_stop, __ATOMIC_ACQUIRE);

		if (semtimedop(sem_id, &sop, 1, &timeout) == 0)
			__atomic_fetch_add(&sem_race_taken, 1, __ATOMIC_RELAXED);
		else if (errno != EAGAIN) {
			fail("semtimedop: %s", strerror(errno));
			break;
		} else if (__atomic_fetch_add(&sem_race_timeouts, 1, __ATOMIC_RELAXED), stop) {
			break;
		}
	}
	return arg;
}

static void *sem_rmid_waiter(void *arg)
{
	struct sembuf sop = { 0, -1, 0 };

	if (semop(sem_id, &sop, 1) == 0)
		fail("semop on a removed set succeeded");
	else if (errno != EIDRM)
		fail("semop on a removed set: %s, not EIDRM", strerror(errno));
	return arg;
}

static void sysv_sem(void)
{
	/* sem 0: 1 poster, 2 simple waiters; sems 2, 3: 1 poster each, a
	 * complex waiter taking both at once. */
	struct sem_job jobs[] = {
		{ { 0 }, 1, +1, SEM_POSTS },
		{ { 0 }, 1, -1, SEM_POSTS / 2 },
		{ { 0 }, 1, -1, SEM_POSTS - SEM_POSTS / 2 },
		{ { 2 }, 1, +1, SEM_POSTS },
		{ { 3 }, 1, +1, SEM_POSTS },
		{ { 2, 3 }, 2, -1, SEM_POSTS },
	};
	pthread_t t[ARRAY_SIZE(jobs)];
	struct sembuf post = { 1, 1, 0 };
	double t0 = now_ms(CLOCK_MONOTONIC), ms[3];
	unsigned int seed = 2, k;
	long i, left;
	int n;

	sem_id = semget(IPC_PRIVATE, 4, IPC_CREAT | 0600);
	if (sem_id < 0)
		return fail("semget: %s", strerror(errno));
	for (i = ARRAY_SIZE(jobs) - 1; i >= 0; i--)
		spawn(&t[i], sem_worker, &jobs[i]);
	for (i = 0; i < (long)ARRAY_SIZE(jobs); i++)
		join(t[i]);
	for (n = 0; n < 4; n++)
		if (semctl(sem_id, n, GETVAL))
			fail("semaphore %d is %d after as many waits as posts",
			     n, semctl(sem_id, n, GETVAL));
	ms[0] = lap(&t0);

	for (i = 0; i < ncpu; i++)
		spawn(&t[i], sem_timeouts, NULL);
	for (i = 0; i < ncpu; i++)
		join(t[i]);
	ms[1] = lap(&t0);

	sem_stop = 0;
	sem_race_taken = sem_race_timeouts = 0;
	for (i = 0; i < 3; i++)
		spawn(&t[i], sem_race_waiter, NULL);
	for (i = 0; i < SEM_RACE && !failed(); i++) {
		if (semop(sem_id, &post, 1))
			fail("semop(+1): %s", strerror(errno));
		for (k = rnd(&seed) % 4; k; k--)
			sched_yield();
		if (rnd(&seed) % 16 == 0)
			usleep(rnd(&seed) % 3000);
	}
	__atomic_store_n(&sem_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		join(t[i]);
	left = semctl(sem_id, 1, GETVAL);
	ms[2] = lap(&t0);
	info("%ld posts raced with 1 ms timeouts: %ld taken, %ld left, %ld "
	     "timeouts; wake-ups %.0f ms, timeouts %.0f ms, race %.0f ms",
	     (long)SEM_RACE, sem_race_taken, left, sem_race_timeouts,
	     ms[0], ms[1], ms[2]);
	if (!failed() && sem_race_taken + left != SEM_RACE)
		fail("%ld posts, %ld taken and %ld left", (long)SEM_RACE,
		     sem_race_taken, left);
	add_iterations(SEM_RACE);

	for (i = 0; i < 2; i++)
		spawn(&t[i], sem_rmid_waiter, NULL);
	while (semctl(sem_id, 0, GETNCNT) < 2)
		usleep(1000);
	if (semctl(sem_id, 0, IPC_RMID))
		fail("IPC_RMID: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		join(t[i]);
}

/* ---------------------------------------------------------------------
 * signal-exit: kernel/signal.c __lock_task_sighand().  Multi-threaded
 * children exit in four ways while their parent signals them with kill(),
 * sigqueue() and tgkill() (standard signals: pending ones merge, so a
 * child is never buried under a queue of them) and reads their /proc/<pid>/stat (which locks
 * the sighand too).  Every child must be reaped with the expected status;
 * every signal that arrived must carry what was sent.
 */

#define SIG_PARENTS 2
#define SIG_CHILDREN (6 * scale)	/* per parent */
#define SIG_THREADS 3
#define SIG_MAGIC 0x5a17

enum { EXIT_GROUP_FROM_MAIN, JOIN_THEN_EXIT, EXIT_GROUP_FROM_THREAD,
       LAST_THREAD_EXITS, SIG_MODES };

struct sig_shared {
	int tid[SIG_PARENTS][SIG_THREADS];
	long received, bad;
	long sent;
};

static struct sig_shared *sig;
static int sig_slot;	/* in a child: which tid[] row is its own */
static int sig_mode;

static void sig_handler(int signo, siginfo_t *si, void *uc)
{
	int ok = si->si_pid == getppid();

	if (signo == SIGUSR1)
		ok = ok && si->si_code == SI_USER;
	else if (signo == SIGUSR2)
		ok = ok && si->si_code == SI_QUEUE && si->si_value.sival_int == SIG_MAGIC;
	else	/* SIGWINCH */
		ok = ok && si->si_code == SI_TKILL;
	__atomic_fetch_add(ok ? &sig->received : &sig->bad, 1, __ATOMIC_RELAXED);
	(void)uc;
}

static void *sig_child_thread(void *arg)
{
	long i = (long)arg;
	double end = now_ms(CLOCK_MONOTONIC) + 2;

	__atomic_store_n(&sig->tid[sig_slot][i], gettid_(), __ATOMIC_RELEASE);
	/* Live long enough to be signalled: on CPU, so that the signals
	 * interrupt user space, not a sleep. */
	while (now_ms(CLOCK_MONOTONIC) < end)
		;
	if (sig_mode == EXIT_GROUP_FROM_THREAD && i == SIG_THREADS - 1)
		_exit(42);
	return NULL;
}

static void sig_child(void)
{
	struct sigaction sa = { .sa_sigaction = sig_handler, .sa_flags = SA_SIGINFO };
	pthread_t t[SIG_THREADS];
	sigset_t set;
	long i;

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sigemptyset(&set);
	pthread_sigmask(SIG_SETMASK, &set, NULL);
	for (i = 0; i < SIG_THREADS; i++)
		if (pthread_create(&t[i], NULL, sig_child_thread, (void *)i))
			_exit(3);
	switch (sig_mode) {
	case EXIT_GROUP_FROM_MAIN:
		_exit(42);
	case JOIN_THEN_EXIT:
		for (i = 0; i < SIG_THREADS; i++)
			pthread_join(t[i], NULL);
		_exit(42);
	case EXIT_GROUP_FROM_THREAD:
		for (;;)
			pause();
	case LAST_THREAD_EXITS:
		/* A zombie leader until the last thread is gone: exit 0. */
		pthread_exit(NULL);
	}
}

static void *sig_parent(void *arg)
{
	int slot = (long)arg, child, status, i, fd;
	union sigval value = { .sival_int = SIG_MAGIC };
	sigset_t block, old;
	char path[64], buf[512];
	pid_t pid, r;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGWINCH);
	for (child = 0; child < SIG_CHILDREN && !failed(); child++) {
		int mode = (child + slot) % SIG_MODES;

		for (i = 0; i < SIG_THREADS; i++)
			sig->tid[slot][i] = 0;
		/* The child starts with them blocked, until its handlers are in. */
		pthread_sigmask(SIG_BLOCK, &block, &old);
		pid = fork();
		if (pid == 0) {
			sig_slot = slot;
			sig_mode = mode;
			sig_child();
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (pid < 0) {
			fail("fork: %s", strerror(errno));
			break;
		}
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		for (i = 0;; i++) {
			int tid = __atomic_load_n(&sig->tid[slot][i % SIG_THREADS],
						  __ATOMIC_ACQUIRE);
			int n = 0;

			n += kill(pid, SIGUSR1) == 0;
			n += sigqueue(pid, SIGUSR2, value) == 0;
			if (tid)
				n += syscall(SYS_tgkill, pid, tid, SIGWINCH) == 0;
			__atomic_fetch_add(&sig->sent, n, __ATOMIC_RELAXED);
			fd = open(path, O_RDONLY);
			if (fd >= 0) {
				if (read(fd, buf, sizeof(buf)) < 0 && errno != ESRCH)
					fail("reading %s: %s", path, strerror(errno));
				close(fd);
			}
			r = waitpid(pid, &status, WNOHANG);
			if (r == pid)
				break;
			sched_yield();
			if (r < 0) {
				fail("waitpid: %s", strerror(errno));
				return NULL;
			}
		}
		if (WIFSIGNALED(status))
			fail("child (mode %d) killed by signal %d", mode, WTERMSIG(status));
		else if (WEXITSTATUS(status) != (mode == LAST_THREAD_EXITS ? 0 : 42))
			fail("child (mode %d) exited %d", mode, WEXITSTATUS(status));
		if (kill(pid, SIGUSR1) == 0 || errno != ESRCH)
			fail("kill() of a reaped child: not ESRCH");
		add_iterations(1);
	}
	return NULL;
}

static void signal_exit(void)
{
	pthread_t t[SIG_PARENTS];
	long i;

	sig = mmap(NULL, sizeof(*sig), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sig == MAP_FAILED)
		fatal("mmap", errno);
	for (i = 0; i < SIG_PARENTS; i++)
		spawn(&t[i], sig_parent, (void *)i);
	for (i = 0; i < SIG_PARENTS; i++)
		join(t[i]);
	info("%ld signals sent, %ld received", sig->sent, sig->received);
	if (sig->bad)
		fail("%ld signals arrived with the wrong siginfo", sig->bad);
	else if (!sig->received)
		fail("no signal arrived (%ld sent)", sig->sent);
	else if (sig->received > sig->sent)
		fail("%ld signals received, only %ld sent", sig->received, sig->sent);
	munmap(sig, sizeof(*sig));
}

/* ---------------------------------------------------------------------
 * rwsem: kernel/locking/rwsem.c down_read slowpath.  Threads fault pages
 * and zap them (mmap_lock read) for as long as others mmap, mprotect and
 * munmap (mmap_lock write) in the same mm.  The data of every page is
 * checked after every fault.
 */

#define RW_FAULTERS 3
#define RW_CHURNERS 2
#define RW_CYCLES (10 * scale)	/* per churner */
#define RW_PAGES 32

static unsigned char *rw_shared, *rw_ro;
static int rw_stop;
static long rw_rounds;

static void *rw_faulter(void *arg)
{
	long me = (long)arg, round, p;
	volatile uint64_t *slot;
	uint64_t v;

	for (round = 0; !__atomic_load_n(&rw_stop, __ATOMIC_RELAXED) && !failed();
	     round++) {
		for (p = 0; p < RW_PAGES; p++) {
			slot = (uint64_t *)(rw_shared + p * page) + me;
			v = (uint64_t)me << 48 | (round & 0xffffffff) << 16 | p;
			*slot = v;
			if (*slot != v)
				fail("shared page %ld: wrote %#llx, read %#llx", p,
				     (unsigned long long)v, (unsigned long long)*slot);
			if (rw_ro[p * page + me] != (unsigned char)(p + me))
				fail("read-only page %ld corrupted", p);
		}
		/* Every page faults again in the next round (the data stays
		 * in the shared mapping's page cache). */
		madvise(rw_shared, RW_PAGES * page, MADV_DONTNEED);
	}
	__atomic_fetch_add(&rw_rounds, round, __ATOMIC_RELAXED);
	return NULL;
}

static void *rw_churn(void *arg)
{
	size_t len = 8 * page;
	unsigned char *p;
	char buf[256];
	long cycle;
	size_t i;
	int fd;

	for (cycle = 0; cycle < RW_CYCLES && !failed(); cycle++) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			fail("mmap: %s", strerror(errno));
			break;
		}
		for (i = 0; i < len; i += page)
			p[i] = i / page + 1;
		/* Split the VMA, write-lock again for each half. */
		mprotect(p, len / 2, PROT_READ);
		mprotect(rw_ro, RW_PAGES * page, PROT_READ | PROT_WRITE);
		for (i = 0; i < len; i += page)
			if (p[i] != i / page + 1)
				fail("private page %zu lost its data", i / page);
		mprotect(rw_ro, RW_PAGES * page, PROT_READ);
		madvise(rw_shared, RW_PAGES * page, MADV_DONTNEED);
		madvise(rw_ro, RW_PAGES * page, MADV_DONTNEED);
		munmap(p, len);
		if (arg) {
			fd = open("/proc/self/maps", O_RDONLY);
			while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
		add_iterations(1);
	}
	return NULL;
}

static void rwsem(void)
{
	pthread_t f[RW_FAULTERS], c[RW_CHURNERS];
	long i, p;

	/* Shared mappings keep their data when zapped. */
	rw_shared = mmap(NULL, RW_PAGES * page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	rw_ro = mmap(NULL, RW_PAGES * page, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rw_shared == MAP_FAILED || rw_ro == MAP_FAILED)
		fatal("mmap", errno);
	for (p = 0; p < RW_PAGES; p++)
		for (i = 0; i < RW_FAULTERS; i++)
			rw_ro[p * page + i] = p + i;
	mprotect(rw_ro, RW_PAGES * page, PROT_READ);
	rw_stop = 0;
	rw_rounds = 0;
	for (i = 0; i < RW_FAULTERS; i++)
		spawn(&f[i], rw_faulter, (void *)i);
	for (i = 0; i < RW_CHURNERS; i++)
		spawn(&c[i], rw_churn, (void *)i);
	for (i = 0; i < RW_CHURNERS; i++)
		join(c[i]);
	__atomic_store_n(&rw_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < RW_FAULTERS; i++)
		join(f[i]);
	munmap(rw_shared, RW_PAGES * page);
	munmap(rw_ro, RW_PAGES * page);
	info("%ld mmap/mprotect/munmap cycles, %ld rounds of faults on %d pages",
	     cur.iterations, rw_rounds, RW_PAGES);
}

/* ---------------------------------------------------------------------
 * ipi: kernel/smp.c csd_lock_wait() and the cross-CPU calls that wait on
 * it.  membarrier() between threads pinned on every CPU, checked with the
 * store-buffering litmus test of membarrier(2); then mprotect() of a page
 * those threads keep writing (a TLB shoot-down on x86), checked by the
 * page not changing once mprotect(PROT_READ) has returned.
 */

#define IPI_ROUNDS ((unsigned long)(128 * scale))
#define IPI_PROTECTS (20 * scale)

static struct {
	unsigned long round, done;
	int y;
	struct { int x, r, slow_r; char pad[52]; } fast[64];
} *ipi;
static volatile uint64_t *ipi_page;
static unsigned long ipi_gen;
static int ipi_stop;
static long ipi_faults;
static __thread sigjmp_buf ipi_jmp;

static int membarrier(int cmd, unsigned int flags)
{
	return syscall(__NR_membarrier, cmd, flags, 0);
}

/* The fast side: a compiler barrier only, ordered by the slow side's
 * membarrier(). */
static void *ipi_fast(void *arg)
{
	long me = (long)arg;
	unsigned long round;

	pin(me + 1);
	for (round = 1; round <= IPI_ROUNDS; round++) {
		while (__atomic_load_n(&ipi->round, __ATOMIC_ACQUIRE) < round)
			if (__atomic_load_n(&ipi_stop, __ATOMIC_RELAXED))
				return NULL;
		__atomic_store_n(&ipi->fast[me].x, 1, __ATOMIC_RELAXED);
		__asm__ __volatile__("" ::: "memory");
		ipi->fast[me].r = __atomic_load_n(&ipi->y, __ATOMIC_RELAXED);
		__atomic_fetch_add(&ipi->done, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void ipi_membarrier(void)
{
	int nfast = ncpu - 1, cmd, i;
	unsigned long round;
	pthread_t t[64];
	int mask;

	mask = membarrier(MEMBARRIER_CMD_QUERY, 0);
	cmd = MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_GLOBAL_EXPEDITED |
	      MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	if (mask < 0 || (mask & cmd) != cmd)
		return fail("membarrier: commands %#x not supported (%d)", cmd, mask);
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0))
		return fail("membarrier(REGISTER): %s", strerror(errno));
	ipi = calloc(1, sizeof(*ipi));
	pin(0);
	for (i = 0; i < nfast; i++)
		spawn(&t[i], ipi_fast, (void *)(long)i);
	for (round = 1; round <= IPI_ROUNDS && !failed(); round++) {
		ipi->y = 0;
		ipi->done = 0;
		for (i = 0; i < nfast; i++)
			ipi->fast[i].x = 0;
		__atomic_store_n(&ipi->round, round, __ATOMIC_RELEASE);
		__atomic_store_n(&ipi->y, 1, __ATOMIC_RELAXED);
		/* A few rounds wait for a grace period: keep them rare. */
		cmd = round % 64 == 0 ? MEMBARRIER_CMD_GLOBAL :
		      round % 8 == 0 ? MEMBARRIER_CMD_GLOBAL_EXPEDITED :
		      MEMBARRIER_CMD_PRIVATE_EXPEDITED;
		if (membarrier(cmd, 0))
			fail("membarrier(%d): %s", cmd, strerror(errno));
		for (i = 0; i < nfast; i++)
			ipi->fast[i].slow_r = __atomic_load_n(&ipi->fast[i].x, __ATOMIC_RELAXED);
		while (__atomic_load_n(&ipi->done, __ATOMIC_ACQUIRE) < (unsigned long)nfast)
			;
		for (i = 0; i < nfast; i++)
			if (!ipi->fast[i].r && !ipi->fast[i].slow_r)
				fail("membarrier(%d) round %lu: CPU %d read y=0 and "
				     "CPU 0 read x=0", cmd, round, i + 1);
		add_iterations(1);
	}
	__atomic_store_n(&ipi_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nfast; i++)
		join(t[i]);
	free(ipi);
}

/* Wait in the handler, not after it: returning would retry the store. */
static void ipi_segv(int signo, siginfo_t *si, void *uc)
{
	if ((char *)si->si_addr < (char *)ipi_page ||
	    (char *)si->si_addr >= (char *)ipi_page + page) {
		signal(SIGSEGV, SIG_DFL);
		return;
	}
	siglongjmp(ipi_jmp, 1);
	(void)signo, (void)uc;
}

/* Store until the store faults; then wait for the page to be writable
 * again (ipi_gen even) and go on. */
static void *ipi_writer(void *arg)
{
	long me = (long)arg;
	static __thread uint64_t v;
	unsigned long g;

	pin(me + 1);
	if (sigsetjmp(ipi_jmp, 1)) {
		__atomic_fetch_add(&ipi_faults, 1, __ATOMIC_RELAXED);
		g = __atomic_load_n(&ipi_gen, __ATOMIC_ACQUIRE);
		while ((g & 1) && g == __atomic_load_n(&ipi_gen, __ATOMIC_ACQUIRE))
			;
	}
	while (!__atomic_load_n(&ipi_stop, __ATOMIC_RELAXED))
		ipi_page[me * 8] = ++v;
	return NULL;
}

static void ipi_mprotect(void)
{
	struct sigaction sa = { .sa_sigaction = ipi_segv, .sa_flags = SA_SIGINFO };
	int nw = ncpu - 1, i, k;
	uint64_t before[64];
	pthread_t t[64];
	long n;

	ipi_page = mmap(NULL, page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ipi_page == MAP_FAILED)
		fatal("mmap", errno);
	sigaction(SIGSEGV, &sa, NULL);
	ipi_stop = 0;
	ipi_gen = 0;
	for (i = 0; i < nw; i++)
		spawn(&t[i], ipi_writer, (void *)(long)i);
	for (n = 0; n < IPI_PROTECTS && !failed(); n++) {
		/* Let every writer store a few times. */
		for (i = 0; i < nw; i++)
			for (k = 0; k < 1000 && ipi_page[i * 8] < 2; k++)
				sched_yield();
		__atomic_fetch_add(&ipi_gen, 1, __ATOMIC_RELEASE);	/* odd: RO */
		if (mprotect((void *)ipi_page, page, PROT_READ))
			fail("mprotect: %s", strerror(errno));
		for (i = 0; i < nw; i++)
			before[i] = ipi_page[i * 8];
		spin(200000);
		for (i = 0; i < nw; i++)
			if (ipi_page[i * 8] != before[i])
				fail("CPU %d wrote a page mprotect(PROT_READ) had "
				     "write-protected", i + 1);
		if (mprotect((void *)ipi_page, page, PROT_READ | PROT_WRITE))
			fail("mprotect: %s", strerror(errno));
		for (i = 0; i < nw; i++)
			ipi_page[i * 8] = 0;
		__atomic_fetch_add(&ipi_gen, 1, __ATOMIC_RELEASE);	/* even: RW */
		add_iterations(1);
	}
	__atomic_store_n(&ipi_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nw; i++)
		join(t[i]);
	signal(SIGSEGV, SIG_DFL);
	munmap((void *)ipi_page, page);
	info("%ld write-protects, %ld faulting stores", n, ipi_faults);
}

static void ipi_workload(void)
{
	cpu_set_t all;
	int i;

	if (ncpu < 2 || ncpu > 64)
		return fail("needs 2 to 64 CPUs, %d online", ncpu);
	ipi_membarrier();
	in_child(ipi_mprotect);
	CPU_ZERO(&all);
	for (i = 0; i < ncpu; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
}

/* ---------------------------------------------------------------------
 * perf-ring: kernel/events/ring_buffer.c __perf_output_begin(), which must
 * not write a record before it has read data_tail.  Per worker thread, a
 * page-fault and a context-switch event (period 1) share a small ring that
 * a reader on another CPU drains through data_head (acquire) and data_tail
 * (release).  Every record must parse, and samples + lost must equal the
 * counts.
 */

#define PERF_WORKERS 2
#define PERF_ROUNDS (60 * scale)	/* per worker */
#define PERF_FAULTS 32		/* per round */
#define PERF_DATA_PAGES 1

struct perf_sample {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t id, period;
};

struct perf_lost {
	struct perf_event_header h;
	uint64_t id, lost;
};

struct perf_ring {
	int fd[2];
	uint64_t id[2];
	pid_t tid;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;
	int pipe_to[2], pipe_from[2];
	int index;	/* the worker runs on CPU 2 * index, the reader next */
	int phase;	/* 1: worker done; 2: drained; 3: events disabled */
	long samples, lost, other;
};

static void perf_drain(struct perf_ring *r)
{
	uint64_t head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pc->data_tail;
	unsigned char rec[64];
	struct perf_event_header *h = (void *)rec;
	uint64_t i;

	if (head - tail > r->size)
		return fail("data_head %llu is %llu bytes ahead of data_tail",
			    (unsigned long long)head, (unsigned long long)(head - tail));
	while (tail < head) {
		for (i = 0; i < sizeof(*h); i++)
			rec[i] = r->data[(tail + i) % r->size];
		if (h->size < sizeof(*h) || h->size % 8 || h->size > sizeof(rec) ||
		    h->size > head - tail)
			return fail("record type %u of size %u at %llu", h->type,
				    h->size, (unsigned long long)tail);
		for (i = sizeof(*h); i < h->size; i++)
			rec[i] = r->data[(tail + i) % r->size];
		if (h->type == PERF_RECORD_SAMPLE) {
			struct perf_sample *s = (void *)rec;

			if (h->size != sizeof(*s) || s->pid != (uint32_t)getpid() ||
			    s->tid != (uint32_t)r->tid || s->period != 1 ||
			    (s->id != r->id[0] && s->id != r->id[1]))
				return fail("bad sample: size %u pid %u tid %u id %llu period %llu",
					    h->size, s->pid, s->tid,
					    (unsigned long long)s->id,
					    (unsigned long long)s->period);
			r->samples++;
		} else if (h->type == PERF_RECORD_LOST) {
			struct perf_lost *l = (void *)rec;

			if (h->size != sizeof(*l))
				return fail("bad PERF_RECORD_LOST of size %u", h->size);
			r->lost += l->lost;
		} else if (h->type == PERF_RECORD_THROTTLE ||
			   h->type == PERF_RECORD_UNTHROTTLE) {
			r->other++;
		} else {
			return fail("unexpected record type %u", h->type);
		}
		/* Record by record: the kernel writes right behind. */
		tail += h->size;
		__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
	}
}

static void *perf_reader(void *arg)
{
	struct perf_ring *r = arg;
	struct pollfd pfd = { .fd = r->fd[0], .events = POLLIN };
	int phase;

	pin(2 * r->index + 1);
	for (;;) {
		phase = __atomic_load_n(&r->phase, __ATOMIC_ACQUIRE);
		/* Late: the ring is full when the reader starts, the kernel
		 * loses records, then writes right behind data_tail. */
		if (!phase) {
			if (poll(&pfd, 1, 20) <= 0)
				continue;
			usleep(20000);
		}
		perf_drain(r);
		if (failed() || phase == 3)
			break;
		if (phase == 1)
			__atomic_store_n(&r->phase, 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *perf_pinger(void *arg)
{
	struct perf_ring *r = arg;
	char c;

	while (read(r->pipe_to[0], &c, 1) == 1)
		if (write(r->pipe_from[1], &c, 1) != 1)
			break;
	return NULL;
}

static int perf_open(uint64_t config, int group)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = config,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD,
		.disabled = 1,
		.watermark = 1,
		/* poll() returns when the ring is all but full. */
		.wakeup_watermark = PERF_DATA_PAGES * 4096 - 2 * sizeof(struct perf_sample),
	};

	return syscall(__NR_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void *perf_worker(void *arg)
{
	struct perf_ring *r = arg;
	long round, i;
	pthread_t reader, pinger;
	uint64_t count[2];
	unsigned char *p;
	char c = 0;

	pin(2 * r->index);
	r->tid = gettid_();
	r->fd[0] = perf_open(PERF_COUNT_SW_PAGE_FAULTS, -1);
	r->fd[1] = perf_open(PERF_COUNT_SW_CONTEXT_SWITCHES, -1);
	if (r->fd[0] < 0 || r->fd[1] < 0) {
		fail("perf_event_open: %s", strerror(errno));
		return NULL;
	}
	r->size = PERF_DATA_PAGES * page;
	r->pc = mmap(NULL, page + r->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->fd[0], 0);
	if (r->pc == MAP_FAILED) {
		fail("mmap of the perf ring: %s", strerror(errno));
		return NULL;
	}
	r->data = (unsigned char *)r->pc + page;
	if (ioctl(r->fd[1], PERF_EVENT_IOC_SET_OUTPUT, r->fd[0]) ||
	    ioctl(r->fd[0], PERF_EVENT_IOC_ID, &r->id[0]) ||
	    ioctl(r->fd[1], PERF_EVENT_IOC_ID, &r->id[1]) ||
	    pipe(r->pipe_to) || pipe(r->pipe_from)) {
		fail("perf ring setup: %s", strerror(errno));
		return NULL;
	}
	spawn(&reader, perf_reader, r);
	spawn(&pinger, perf_pinger, r);
	ioctl(r->fd[0], PERF_EVENT_IOC_ENABLE, 0);
	ioctl(r->fd[1], PERF_EVENT_IOC_ENABLE, 0);
	p = mmap(NULL, PERF_FAULTS * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap: %s", strerror(errno));
		return NULL;
	}
	for (round = 0; round < PERF_ROUNDS && !failed(); round++) {
		for (i = 0; i < PERF_FAULTS; i++)
			p[i * page] = 1;
		madvise(p, PERF_FAULTS * page, MADV_DONTNEED);
		/* Sleep until the pinger answers: a context switch. */
		if (write(r->pipe_to[1], &c, 1) != 1 || read(r->pipe_from[0], &c, 1) != 1)
			fail("pipe: %s", strerror(errno));
		add_iterations(1);
	}
	munmap(p, PERF_FAULTS * page);
	/* Lost records are written by the next record that fits: after the
	 * ring is drained, make one, then stop counting. */
	__atomic_store_n(&r->phase, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&r->phase, __ATOMIC_ACQUIRE) == 1 && !failed())
		sched_yield();
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		p[0] = 1;
		munmap(p, page);
	}
	ioctl(r->fd[0], PERF_EVENT_IOC_DISABLE, 0);
	ioctl(r->fd[1], PERF_EVENT_IOC_DISABLE, 0);
	__atomic_store_n(&r->phase, 3, __ATOMIC_RELEASE);
	join(reader);
	close(r->pipe_to[1]);
	join(pinger);
	if (read(r->fd[0], &count[0], 8) != 8 || read(r->fd[1], &count[1], 8) != 8) {
		fail("reading the perf counts: %s", strerror(errno));
		count[0] = count[1] = 0;
	}
	info("ring %d: %llu page faults + %llu context switches, %ld samples, "
	     "%ld lost", r->index, (unsigned long long)count[0],
	     (unsigned long long)count[1], r->samples, r->lost);
	if (count[0] < (uint64_t)PERF_ROUNDS * PERF_FAULTS || count[1] < 1)
		fail("%llu page faults, %llu context switches counted",
		     (unsigned long long)count[0], (unsigned long long)count[1]);
	else if (r->samples + r->lost != (long)(count[0] + count[1]))
		fail("%ld samples + %ld lost, %llu events counted", r->samples,
		     r->lost, (unsigned long long)(count[0] + count[1]));
	munmap(r->pc, page + r->size);
	close(r->fd[1]);
	close(r->fd[0]);
	close(r->pipe_to[0]);
	close(r->pipe_from[0]);
	close(r->pipe_from[1]);
	return NULL;
}

static void perf_ring(void)
{
	static struct perf_ring rings[PERF_WORKERS];
	pthread_t t[PERF_WORKERS];
	long i;

	memset(rings, 0, sizeof(rings));
	for (i = 0; i < PERF_WORKERS; i++) {
		rings[i].index = i;
		spawn(&t[i], perf_worker, &rings[i]);
	}
	for (i = 0; i < PERF_WORKERS; i++)
		join(t[i]);
}

/* ---------------------------------------------------------------------
 * The table, in the order of workload.py's WORKLOADS.
 */

static const struct workload {
	const char *name;
	void (*run)(void);
} workloads[] = {
	{ "sysv-msg", sysv_msg },
	{ "posix-mq", posix_mq },
	{ "sysv-sem", sysv_sem },
	{ "signal-exit", signal_exit },
	{ "rwsem", rwsem },
	{ "ipi", ipi_workload },
	{ "perf-ring", perf_ring },
};

static void setup(void)
{
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	if (am_init) {
		mkdir("/proc", 0555);
		if (mount("proc", "/proc", "proc", 0, NULL))
			say("volatile-if-init: mounting /proc: %s", strerror(errno));
	}
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && atol(v) > 0 ? atol(v) : def;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	size_t i;
	double t0;

	am_init = getpid() == 1;
	setup();
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	page = sysconf(_SC_PAGESIZE);
	scale = env_long("vif_scale", 1);
	wd_seconds = env_long("vif_watchdog", 60);
	say("volatile-if-init: %d CPUs, scale %ld, watchdog %ld s",
	    ncpu, scale, wd_seconds);
	watchdog_start();
	for (i = 0; i < ARRAY_SIZE(workloads); i++) {
		if (only && !am_init && strcmp(only, workloads[i].name))
			continue;
		memset(&cur, 0, sizeof(cur));
		cur.name = workloads[i].name;
		watchdog_arm(1);
		t0 = now_ms(CLOCK_MONOTONIC);
		workloads[i].run();
		watchdog_arm(0);
		if (cur.failed) {
			say(PREFIX "%s FAIL %s", cur.name, cur.reason);
			nr_failed++;
		} else {
			say(PREFIX "%s ok iterations=%ld ms=%.0f", cur.name,
			    cur.iterations, now_ms(CLOCK_MONOTONIC) - t0);
			nr_ok++;
		}
	}
	done_and_end();
	return 0;
}
