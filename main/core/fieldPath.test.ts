import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBinaryFrame, encodePlotSamplesFrame, formatFieldPath, parseFieldPath, type FieldPathSegment } from './contract.ts';
import { compileFieldPath, numericFieldPaths } from './fieldPath.ts';

const odometry = {
  header: { seq: 3, stamp: { secs: 12, nsecs: 500_000_000 }, frame_id: 'odom' },
  child_frame_id: 'base_link',
  pose: { pose: { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: new Array(36).fill(0) },
  twist: { twist: { linear: { x: 0.42, y: 0, z: 0 }, angular: { x: 0, y: 0, z: -0.1 } }, covariance: new Array(36).fill(0) },
};

function compiled(text: string, rosType?: string) {
  const result = compileFieldPath(text, rosType);
  if (!result.ok) throw new Error(result.message);
  return result.compiled;
}

describe('parsing a field path', () => {
  it('reads the topic, the fields and the array indices', () => {
    const parsed = parseFieldPath(' /joint_states.velocity[1] ');
    expect(parsed).toEqual({
      ok: true,
      path: {
        text: '/joint_states.velocity[1]',
        topic: '/joint_states',
        segments: [
          { kind: 'field', name: 'velocity' },
          { kind: 'index', index: 1 },
        ],
      },
    });
  });

  it('says where a path goes wrong', () => {
    expect(parseFieldPath('odom.twist')).toMatchObject({ ok: false, message: expect.stringContaining('starts with its topic') });
    expect(parseFieldPath('/odom')).toMatchObject({ ok: false, message: expect.stringContaining('names a whole message') });
    expect(parseFieldPath('/odom.twist..x')).toMatchObject({ ok: false, message: "expected a field name after '.' at character 13 of /odom.twist..x" });
    expect(parseFieldPath('/joint_states.velocity[x]')).toMatchObject({ ok: false, message: expect.stringContaining('whole number in brackets') });
    expect(parseFieldPath('/odom.twist-x')).toMatchObject({ ok: false, message: "'-' cannot follow at character 12 of /odom.twist-x" });
    expect(parseFieldPath('')).toMatchObject({ ok: false });
  });

  it('reads back every path it formats', () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/);
    const segment: fc.Arbitrary<FieldPathSegment> = fc.oneof(
      name.map((field) => ({ kind: 'field' as const, name: field })),
      fc.nat({ max: 99_999 }).map((index) => ({ kind: 'index' as const, index })),
    );
    const topic = fc.array(name, { minLength: 1, maxLength: 3 }).map((words) => `/${words.join('/')}`);
    fc.assert(
      fc.property(topic, name, fc.array(segment, { maxLength: 6 }), (topicName, first, rest) => {
        const segments: FieldPathSegment[] = [{ kind: 'field', name: first }, ...rest];
        const parsed = parseFieldPath(formatFieldPath(topicName, segments));
        expect(parsed).toEqual({ ok: true, path: { text: formatFieldPath(topicName, segments), topic: topicName, segments } });
      }),
    );
  });

  it('never throws on any text, and answers in words', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const parsed = parseFieldPath(text);
        if (!parsed.ok) expect(parsed.message.length).toBeGreaterThan(10);
      }),
    );
  });
});

describe('a compiled field path', () => {
  it('reads numbers, array elements, int64s, booleans and stamps', () => {
    expect(compiled('/odom.twist.twist.linear.x', 'nav_msgs/Odometry').read(odometry)).toBe(0.42);
    expect(compiled('/odom.header.stamp', 'nav_msgs/Odometry').read(odometry)).toBe(12.5);
    expect(compiled('/odom.header.stamp').read({ header: { stamp: { sec: 3, nanosec: 250_000_000 } } })).toBe(3.25);
    expect(compiled('/joint_states.velocity[1]', 'sensor_msgs/msg/JointState').read({ velocity: new Float64Array([0.5, -2]) })).toBe(-2);
    expect(compiled('/joint_states.velocity[1]').read({ velocity: [0.5, 7] })).toBe(7);
    expect(compiled('/big.count').read({ count: 2n ** 40n })).toBe(2 ** 40);
    expect(compiled('/flag.on').read({ on: true })).toBe(1);
  });

  it('reads nothing, and says why naming the segment, where a message lacks the field', () => {
    const path = compiled('/odom.twist.twst.linear.x');
    expect(path.read(odometry)).toBeUndefined();
    expect(path.explainMiss(odometry)).toBe("/odom has no field 'twst' at /odom.twist.twst; fields there: twist, covariance");
    const element = compiled('/joint_states.velocity[3]');
    expect(element.read({ velocity: [1, 2] })).toBeUndefined();
    expect(element.explainMiss({ velocity: [1, 2] })).toBe('/joint_states.velocity[3] is past the end: the array has 2 elements in this message');
    expect(compiled('/odom.child_frame_id').explainMiss(odometry)).toBe('/odom.child_frame_id is a string, not a number');
  });

  it('checks a path against the topic type before any message arrives', () => {
    const problem = (text: string, type: string) => {
      const result = compileFieldPath(text, type);
      return result.ok ? undefined : result.message;
    };
    expect(problem('/odom.twst.twist.linear.x', 'nav_msgs/Odometry')).toBe(
      "/odom (nav_msgs/Odometry) has no field 'twst' at /odom.twst; its fields: header, child_frame_id, pose, twist",
    );
    expect(problem('/odom.twist.twist.linear', 'nav_msgs/Odometry')).toBe(
      '/odom.twist.twist.linear is a geometry_msgs/Vector3, not a number: pick one of its fields (x, y, z)',
    );
    expect(problem('/odom.pose.covariance[36]', 'nav_msgs/Odometry')).toBe('/odom.pose.covariance[36] is past the end: covariance has 36 elements (0–35)');
    expect(problem('/joint_states.velocity', 'sensor_msgs/JointState')).toBe(
      '/joint_states.velocity is an array of float64: pick an element, such as /joint_states.velocity[0]',
    );
    expect(problem('/joint_states.name[0]', 'sensor_msgs/JointState')).toBe('/joint_states.name[0] is a string, not a number');
    expect(problem('/odom.header[0]', 'nav_msgs/Odometry')).toBe('/odom.header is not an array: remove [0]');
    expect(problem('/odom.header.seq.x', 'nav_msgs/Odometry')).toBe("/odom.header.seq is a uint32, which has no field 'x'");
    // An unknown type is checked when its messages arrive.
    expect(problem('/custom.anything', 'my_msgs/Custom')).toBeUndefined();
  });

  it('offers the numeric fields of a known type, and every one of them compiles', () => {
    const offered = numericFieldPaths('/odom', 'nav_msgs/Odometry');
    expect(offered).toContain('/odom.twist.twist.linear.x');
    expect(offered).toContain('/odom.header.stamp');
    expect(offered).toContain('/odom.pose.covariance[0]');
    expect(offered).not.toContain('/odom.child_frame_id');
    expect(numericFieldPaths('/joint_states', 'sensor_msgs/JointState')).toEqual([
      '/joint_states.header.seq',
      '/joint_states.header.stamp',
      '/joint_states.position[0]',
      '/joint_states.velocity[0]',
      '/joint_states.effort[0]',
    ]);
    expect(numericFieldPaths('/camera/image_raw', 'sensor_msgs/Image')).not.toContain('/camera/image_raw.data[0]');
    for (const path of offered) expect(compileFieldPath(path, 'nav_msgs/Odometry').ok).toBe(true);
    expect(numericFieldPaths('/custom', 'my_msgs/Custom')).toEqual([]);
  });
});

describe('plot frames', () => {
  it('carry each series by its index, and come back as they went', () => {
    const series = [
      { index: 0, timesMs: new Float64Array([1_700_000_000_000.5, 1_700_000_000_010]), values: new Float64Array([0.1, Number.NaN]) },
      { index: 3, timesMs: new Float64Array([]), values: new Float64Array([]) },
    ];
    const frame = decodeBinaryFrame(encodePlotSamplesFrame(7, series));
    expect(frame).toEqual({ kind: 'plot', generation: 7, series });
  });

  it('refuse a frame whose counts do not match its length', () => {
    const bytes = encodePlotSamplesFrame(1, [{ index: 0, timesMs: new Float64Array([1]), values: new Float64Array([2]) }]);
    expect(() => decodeBinaryFrame(bytes.subarray(0, bytes.length - 8))).toThrow(/claims 1 samples/);
  });
});
