/* Runs the reference firmware under simavr in real time, with its UART0 on a pseudo-terminal.
 *
 *   reins-simavr-harness FIRMWARE.elf [--link PATH]
 *
 * Prints the pty's path on stdout (one line) once the chip runs; --link also makes PATH a symlink
 * to it, removed on exit. Exits on SIGTERM/SIGINT, or when the parent process dies. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "pty_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"

/* Pacing granularity while the chip is busy (it mostly sleeps, and then sleep_until paces). */
#define SERVICE_EVERY_US 100
#define PACE_SLACK_NS 1000000LL
/* Further behind real time than this, the simulation skips ahead rather than racing to catch up. */
#define MAX_LAG_NS 50000000LL

static volatile sig_atomic_t stop_requested;
static pty_uart_t bridge;
static int64_t wall_origin_ns; /* wall-clock time of simulated cycle 0 */

static void on_signal(int signal_number) {
  (void)signal_number;
  stop_requested = 1;
}

static int64_t now_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int64_t cycle_ns(const avr_t *avr, avr_cycle_count_t cycle) {
  return (int64_t)(cycle / avr->frequency) * 1000000000LL + (int64_t)((cycle % avr->frequency) * 1000000000ULL / avr->frequency);
}

/* Holds the simulation back until the wall clock reaches `cycle`, serving the pty meanwhile. The
 * chip may run up to PACE_SLACK_NS ahead before the harness sleeps: waking for every 100 µs timer
 * event would cost more CPU than the simulation itself. Returns early when bytes arrive, so the
 * firmware sees them without waiting out the rest of the sleep. */
static void pace_until(avr_t *avr, avr_cycle_count_t cycle) {
  pty_uart_service(&bridge);
  int64_t ahead_ns = cycle_ns(avr, cycle) - (now_ns() - wall_origin_ns);
  if (ahead_ns < -MAX_LAG_NS) wall_origin_ns = now_ns() - cycle_ns(avr, cycle);
  if (ahead_ns < PACE_SLACK_NS) return;
  while (ahead_ns > 0 && !stop_requested) {
    if (pty_uart_wait(&bridge, ahead_ns)) {
      pty_uart_service(&bridge);
      return;
    }
    ahead_ns = cycle_ns(avr, cycle) - (now_ns() - wall_origin_ns);
  }
  pty_uart_service(&bridge);
}

/* simavr calls this when the chip sleeps until its next timer event. */
static void sleep_until_event(avr_t *avr, avr_cycle_count_t how_long) { pace_until(avr, avr->cycle + how_long); }

int main(int argc, char **argv) {
  const char *firmware_path = NULL, *link_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--link") == 0 && i + 1 < argc) link_path = argv[++i];
    else if (!firmware_path && argv[i][0] != '-') firmware_path = argv[i];
    else {
      fprintf(stderr, "usage: %s FIRMWARE.elf [--link PATH]\n", argv[0]);
      return 2;
    }
  }
  if (!firmware_path) {
    fprintf(stderr, "usage: %s FIRMWARE.elf [--link PATH]\n", argv[0]);
    return 2;
  }
  prctl(PR_SET_PDEATHSIG, SIGTERM); /* a test runner that dies must not leave a busy chip behind */
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  signal(SIGPIPE, SIG_IGN);

  /* simavr chats on stdout while loading; stdout is reserved for the one line with the pty path. */
  int stdout_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);

  elf_firmware_t firmware;
  memset(&firmware, 0, sizeof firmware);
  if (elf_read_firmware(firmware_path, &firmware) != 0) {
    fprintf(stderr, "harness: cannot read firmware %s\n", firmware_path);
    return 1;
  }
  if (!firmware.mmcu[0] || !firmware.frequency) {
    fprintf(stderr, "harness: %s has no .mmcu section (link it with simavr's AVR_MCU macro)\n", firmware_path);
    return 1;
  }
  avr_t *avr = avr_make_mcu_by_name(firmware.mmcu);
  if (!avr) {
    fprintf(stderr, "harness: simavr does not know the chip %s\n", firmware.mmcu);
    return 1;
  }
  avr_init(avr);
  avr->log = LOG_WARNING;
  avr_load_firmware(avr, &firmware);
  avr->sleep = sleep_until_event;

  if (pty_uart_open(&bridge, avr) != 0) {
    fprintf(stderr, "harness: cannot open a pseudo-terminal: %s\n", strerror(errno));
    return 1;
  }
  board_attach(avr);
  if (link_path) {
    unlink(link_path);
    if (symlink(bridge.slave_path, link_path) != 0) {
      fprintf(stderr, "harness: cannot link %s to %s: %s\n", link_path, bridge.slave_path, strerror(errno));
      return 1;
    }
  }
  fflush(stdout);
  dup2(stdout_fd, STDOUT_FILENO);
  close(stdout_fd);
  printf("%s\n", bridge.slave_path);
  fflush(stdout);
  fprintf(stderr, "harness: %s at %u Hz on %s\n", firmware.mmcu, (unsigned)avr->frequency, bridge.slave_path);

  wall_origin_ns = now_ns();
  avr_cycle_count_t service_cycles = avr_usec_to_cycles(avr, SERVICE_EVERY_US);
  avr_cycle_count_t next_service = service_cycles;
  int state = cpu_Running;
  while (!stop_requested) {
    state = avr_run(avr);
    if (state == cpu_Done || state == cpu_Crashed) break;
    if (avr->cycle >= next_service) {
      pace_until(avr, avr->cycle);
      next_service = avr->cycle + service_cycles;
    }
  }
  if (link_path) unlink(link_path);
  pty_uart_close(&bridge);
  if (state == cpu_Crashed) {
    fprintf(stderr, "harness: the firmware crashed at pc 0x%04x\n", (unsigned)avr->pc);
    return 1;
  }
  if (state == cpu_Done) fprintf(stderr, "harness: the firmware stopped (sleep with interrupts off)\n");
  return 0;
}
