/* Framing of PROTOCOL.md §1: version, type, seq, payload, CRC-16/CCITT-FALSE, COBS, 0x00. */
#ifndef REINS_FRAMES_H
#define REINS_FRAMES_H
#include <stdbool.h>
#include <stdint.h>

#define PROTOCOL_VERSION 1
#define FRAME_MAX_PAYLOAD 122
#define FRAME_MAX_BYTES (4 + FRAME_MAX_PAYLOAD + 2)

typedef struct {
  uint8_t type;
  uint16_t seq;
  const uint8_t *payload;
  uint8_t length;
} frame_t;

typedef enum {
  FRAME_NONE = 0, /* no frame completed by this byte */
  FRAME_OK,
  FRAME_BAD_COBS,
  FRAME_TOO_SHORT,
  FRAME_TOO_LONG,
  FRAME_BAD_CRC,
  FRAME_BAD_VERSION,
} frame_status_t;

/* Feeds one received byte. On FRAME_OK, *frame points into a buffer valid until the next call. */
frame_status_t frames_receive_byte(uint8_t byte, frame_t *frame);

/* Sends one frame with the next sequence number; false if the transmit buffer had no room. */
bool frames_send(uint8_t type, const uint8_t *payload, uint8_t length);

#endif
