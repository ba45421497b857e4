#include "uart.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

#include "config.h"

/* Powers of two, so indexes wrap with a mask. RX holds two full frames; TX a SENSOR backlog. */
#define RX_SIZE 256
#define TX_SIZE 256

static volatile uint8_t rx_buffer[RX_SIZE];
static volatile uint8_t rx_head, rx_tail; /* uint8_t wraps at 256 by itself */
static volatile bool rx_overflow;
static volatile uint8_t tx_buffer[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

ISR(USART_RX_vect) {
  uint8_t byte = UDR0;
  uint8_t next = (uint8_t)(rx_head + 1);
  if (next == rx_tail) {
    rx_overflow = true;
    return;
  }
  rx_buffer[rx_head] = byte;
  rx_head = next;
}

ISR(USART_UDRE_vect) {
  if (tx_head == tx_tail) {
    UCSR0B &= (uint8_t)~_BV(UDRIE0);
    return;
  }
  UDR0 = tx_buffer[tx_tail];
  tx_tail = (uint8_t)(tx_tail + 1);
}

void uart_init(void) {
  /* Double speed: 115200 baud is 2.1 % off at 16 MHz this way, 3.5 % without it. */
  const uint16_t ubrr = (uint16_t)((F_CPU / (8UL * UART_BAUD)) - 1);
  /* U2X before UBRR: the chip does not care, but simavr computes the bit time when UBRR0L is
   * written and would otherwise run the line at half speed. */
  UCSR0A = _BV(U2X0);
  UBRR0H = (uint8_t)(ubrr >> 8);
  UBRR0L = (uint8_t)ubrr;
  UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
  UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

bool uart_read(uint8_t *byte) {
  bool available = false;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
    if (rx_head != rx_tail) {
      *byte = rx_buffer[rx_tail];
      rx_tail = (uint8_t)(rx_tail + 1);
      available = true;
    }
  }
  return available;
}

bool uart_rx_pending(void) {
  bool pending;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { pending = rx_head != rx_tail; }
  return pending;
}

bool uart_write_all(const uint8_t *bytes, uint16_t length) {
  bool queued = false;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
    uint8_t used = (uint8_t)(tx_head - tx_tail);
    uint16_t free_bytes = (uint16_t)(TX_SIZE - 1 - used);
    if (length <= free_bytes) {
      for (uint16_t i = 0; i < length; i++) {
        tx_buffer[tx_head] = bytes[i];
        tx_head = (uint8_t)(tx_head + 1);
      }
      UCSR0B |= _BV(UDRIE0);
      queued = true;
    }
  }
  return queued;
}

bool uart_take_overflow(void) {
  bool overflow;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
    overflow = rx_overflow;
    rx_overflow = false;
  }
  return overflow;
}
