#include "frames.h"

#include <util/crc16.h>

#include "uart.h"

static uint8_t rx_encoded[FRAME_MAX_BYTES + 1];
static uint8_t rx_length;
static bool rx_overlong;
static uint8_t rx_decoded[FRAME_MAX_BYTES];
static uint16_t tx_seq;

/* CRC-16/CCITT-FALSE is the XMODEM polynomial, unreflected, started from 0xFFFF. */
static uint16_t crc16(const uint8_t *bytes, uint8_t length) {
  uint16_t crc = 0xFFFF;
  for (uint8_t i = 0; i < length; i++) crc = _crc_xmodem_update(crc, bytes[i]);
  return crc;
}

/* Returns the decoded length, or -1 when the block is not valid COBS. */
static int16_t cobs_decode(const uint8_t *in, uint8_t length, uint8_t *out) {
  uint8_t read = 0, write = 0;
  while (read < length) {
    uint8_t code = in[read];
    if (code == 0 || (uint16_t)read + code > length) return -1;
    for (uint8_t i = 1; i < code; i++) out[write++] = in[read + i];
    read += code;
    if (code != 0xFF && read < length) out[write++] = 0;
  }
  return write;
}

static frame_status_t decode_pending(frame_t *frame) {
  int16_t length = cobs_decode(rx_encoded, rx_length, rx_decoded);
  if (length < 0) return FRAME_BAD_COBS;
  if (length < 6) return FRAME_TOO_SHORT;
  uint8_t body = (uint8_t)(length - 2);
  uint16_t sent_crc = (uint16_t)(rx_decoded[body] | (rx_decoded[body + 1] << 8));
  if (crc16(rx_decoded, body) != sent_crc) return FRAME_BAD_CRC;
  if (rx_decoded[0] != PROTOCOL_VERSION) return FRAME_BAD_VERSION;
  frame->type = rx_decoded[1];
  frame->seq = (uint16_t)(rx_decoded[2] | (rx_decoded[3] << 8));
  frame->payload = rx_decoded + 4;
  frame->length = (uint8_t)(body - 4);
  return FRAME_OK;
}

frame_status_t frames_receive_byte(uint8_t byte, frame_t *frame) {
  if (byte != 0) {
    if (rx_length < sizeof rx_encoded) rx_encoded[rx_length++] = byte;
    else rx_overlong = true;
    return FRAME_NONE;
  }
  frame_status_t status = FRAME_NONE;
  if (rx_overlong) status = FRAME_TOO_LONG;
  else if (rx_length > 0) status = decode_pending(frame);
  rx_length = 0;
  rx_overlong = false;
  return status;
}

bool frames_send(uint8_t type, const uint8_t *payload, uint8_t length) {
  static uint8_t frame[FRAME_MAX_BYTES];
  static uint8_t wire[FRAME_MAX_BYTES + 2];
  if (length > FRAME_MAX_PAYLOAD) return false;
  frame[0] = PROTOCOL_VERSION;
  frame[1] = type;
  frame[2] = (uint8_t)tx_seq;
  frame[3] = (uint8_t)(tx_seq >> 8);
  for (uint8_t i = 0; i < length; i++) frame[4 + i] = payload[i];
  uint8_t body = (uint8_t)(4 + length);
  uint16_t crc = crc16(frame, body);
  frame[body] = (uint8_t)crc;
  frame[body + 1] = (uint8_t)(crc >> 8);
  uint8_t frame_length = (uint8_t)(body + 2);

  /* COBS: each code byte counts the non-zero bytes after it, plus one. Frames are < 254 bytes. */
  uint8_t code_at = 0, write = 1, code = 1;
  for (uint8_t i = 0; i < frame_length; i++) {
    if (frame[i] == 0) {
      wire[code_at] = code;
      code_at = write++;
      code = 1;
    } else {
      wire[write++] = frame[i];
      code++;
    }
  }
  wire[code_at] = code;
  wire[write++] = 0;
  /* The number counts even a frame the full buffer drops, so the host sees the gap. */
  tx_seq++;
  return uart_write_all(wire, write);
}
