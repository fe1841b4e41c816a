/* matmul.c: the same i-k-j triple loop as main.go, in C. Built by
 * `gometal bench` as a static riscv64 Linux binary:
 *     riscv64-linux-gnu-gcc -O2 -static -o matmul-c matmul.c
 * It prints the same BENCH line as the Go version and powers off with
 * reboot(2). Arguments: [-n N] [-reps R]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/reboot.h>
#include <sys/syscall.h>

static void multiply(int n, const double *a, const double *b, double *c) {
	for (int i = 0; i < n; i++) {
		double *ci = c + (size_t)i * n;
		for (int j = 0; j < n; j++)
			ci[j] = 0;
		for (int k = 0; k < n; k++) {
			double aik = a[(size_t)i * n + k];
			const double *bk = b + (size_t)k * n;
			for (int j = 0; j < n; j++)
				ci[j] += aik * bk[j];
		}
	}
}

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void power_off(void) {
	fflush(stdout);
	reboot(RB_POWER_OFF);
	perror("reboot");
	/* glibc passes the magic numbers as (sign-extended) ints, as Linux's
	 * int parameters allow; a kernel that compares all 64 bits refuses
	 * them, so try once more with the values zero-extended, as Go does. */
	syscall(SYS_reboot, 0xfee1deadUL, 672274793UL, 0x4321fedcUL, 0UL);
	perror("reboot (zero-extended)");
	exit(1);
}

int main(int argc, char **argv) {
	int n = 384, reps = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-reps"))
			reps = atoi(argv[i + 1]);
	}
	double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
	       *c = malloc(sizeof(double) * n * n);
	if (!a || !b || !c) {
		printf("BENCH {\"bench\":\"matmul\",\"lang\":\"c\",\"error\":\"malloc failed\"}\n");
		power_off();
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			a[i * n + j] = (double)((i * 7 + j * 3) % 17) / 16;
			b[i * n + j] = (double)((i * 5 + j * 11) % 13) / 12;
		}
	multiply(8, a, b, c); /* warm up, as the Go version */
	double start = now_ms();
	for (int r = 0; r < reps; r++)
		multiply(n, a, b, c);
	double ms = now_ms() - start;
	double sum = 0;
	for (int i = 0; i < n * n; i++)
		sum += c[i];
	printf("BENCH {\"bench\":\"matmul\",\"lang\":\"c\",\"n\":%d,\"reps\":%d,\"ms\":%.4f,\"checksum\":%.17g}\n",
	       n, reps, ms, sum);
	power_off();
	return 0;
}
