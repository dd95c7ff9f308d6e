// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal io_uring for the tests, with raw system calls. Declared in
 * lib.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib.h"

static void *ring_map(int fd, size_t len, off_t off)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, off);

	if (p == MAP_FAILED)
		tap_bail("mmap of the io_uring: %s", strerror(errno));
	return p;
}

void ring_setup(struct ring *r)
{
	char *sq, *cq;

	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 4, &r->p);
	if (r->fd < 0)
		tap_bail("io_uring_setup: %s (CONFIG_IO_URING?)", strerror(errno));
	sq = ring_map(r->fd, r->p.sq_off.array + r->p.sq_entries *
		      sizeof(unsigned int), IORING_OFF_SQ_RING);
	cq = ring_map(r->fd, r->p.cq_off.cqes + r->p.cq_entries *
		      sizeof(struct io_uring_cqe), IORING_OFF_CQ_RING);
	r->sqes = ring_map(r->fd, r->p.sq_entries * sizeof(*r->sqes),
			   IORING_OFF_SQES);
	r->sq_tail = (unsigned int *)(sq + r->p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + r->p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + r->p.sq_off.array);
	r->cq_tail = (unsigned int *)(cq + r->p.cq_off.tail);
}

/* The mappings go with the process; the file is enough to end the ring */
void ring_close(struct ring *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

unsigned int ring_cq_tail(const struct ring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
}

struct io_uring_sqe *ring_sqe(struct ring *r)
{
	unsigned int i = *r->sq_tail & *r->sq_mask;

	memset(&r->sqes[i], 0, sizeof(r->sqes[i]));
	r->sq_array[i] = i;
	return &r->sqes[i];
}

int ring_submit(struct ring *r, unsigned int wait_nr)
{
	long n;

	__atomic_store_n(r->sq_tail, *r->sq_tail + 1, __ATOMIC_RELEASE);
	n = syscall(__NR_io_uring_enter, r->fd, 1, wait_nr,
		    wait_nr ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
	return n < 0 ? -errno : n;
}
