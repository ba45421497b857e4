// A message as the ROS 1 deserialiser reads it from a log, reshaped into what a rosbridge server
// sends, so one set of decoders serves live and recorded robots. The only difference that matters is
// time: the deserialiser gives `{sec, nsec}`, rosbridge (ROS 1) gives `{secs, nsecs}`.
export function rosbridgeWireValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return value.map(rosbridgeWireValue);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 2 && typeof record.sec === 'number' && typeof record.nsec === 'number') return { secs: record.sec, nsecs: record.nsec };
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = rosbridgeWireValue(record[key]);
  return out;
}
