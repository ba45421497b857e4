import { describe, expect, it } from 'vitest';
import { parseTopicsAndRawTypes, rosapiParameterNames, rosVersionOfTypes } from './rosapi.ts';
import { WireFieldError } from './decode/wireFields.ts';

describe('rosVersionOfTypes', () => {
  it('tells ROS 2 (pkg/msg/Type) from ROS 1 (pkg/Type) by the names rosapi lists', () => {
    expect(rosVersionOfTypes(['sensor_msgs/msg/Image', 'rcl_interfaces/msg/Log'])).toBe(2);
    expect(rosVersionOfTypes(['sensor_msgs/Image', 'rosgraph_msgs/Log'])).toBe(1);
    // One ROS 2 name is enough: ROS 1 never writes `msg` in a type name.
    expect(rosVersionOfTypes(['std_msgs/String', 'nav_msgs/msg/Odometry'])).toBe(2);
  });

  it('says nothing when the list says nothing', () => {
    expect(rosVersionOfTypes([])).toBeUndefined();
    expect(rosVersionOfTypes(['', 'odd'])).toBeUndefined();
  });
});

describe('rosapiParameterNames', () => {
  it('names a node’s parameter NODE:PARAM on ROS 2, and /NODE/PARAM then the global /PARAM on ROS 1', () => {
    expect(rosapiParameterNames(2, '/robot_state_publisher', 'robot_description')).toEqual(['/robot_state_publisher:robot_description']);
    expect(rosapiParameterNames(undefined, 'robot_state_publisher', 'robot_description')).toEqual(['/robot_state_publisher:robot_description']);
    expect(rosapiParameterNames(1, 'robot_state_publisher', 'robot_description')).toEqual(['/robot_state_publisher/robot_description', '/robot_description']);
  });
});

describe('parseTopicsAndRawTypes', () => {
  it('maps each type to its full definition text', () => {
    const values = {
      topics: ['/scan', '/odom'],
      types: ['sensor_msgs/msg/LaserScan', 'nav_msgs/msg/Odometry'],
      typedefs_full_text: ['float32 a', 'float64 b'],
    };
    expect(parseTopicsAndRawTypes(values)).toEqual(
      new Map([
        ['sensor_msgs/msg/LaserScan', 'float32 a'],
        ['nav_msgs/msg/Odometry', 'float64 b'],
      ]),
    );
  });

  it('refuses an answer whose lists do not pair up, in words', () => {
    expect(() => parseTopicsAndRawTypes({ topics: ['/scan'], types: ['sensor_msgs/msg/LaserScan'], typedefs_full_text: [] })).toThrow(WireFieldError);
    expect(() => parseTopicsAndRawTypes({ topics: ['/scan'], types: ['sensor_msgs/msg/LaserScan'] })).toThrow(/typedefs_full_text/);
  });
});
