// roslib 2.1 as a typed namespace. Its entry declaration (dist/RosLib.d.ts) re-exports './src/RosLib'
// without a file extension, which NodeNext resolution cannot follow, so a plain
// `import * as ROSLIB from 'roslib'` type-checks as an empty module. The per-file declarations it
// ships are complete, so the runtime namespace is re-typed with them here (types only: erased at
// runtime). Drop this file once roslib's entry declaration resolves under NodeNext.
import * as roslibRuntime from 'roslib';
import type * as RoslibTypes from '../../../node_modules/roslib/dist/src/RosLib.d.ts';

export const ROSLIB = roslibRuntime as unknown as typeof RoslibTypes;

export type Ros = RoslibTypes.Ros;
export type Topic<T> = RoslibTypes.Topic<T>;
export type RosbridgeMessage = RoslibTypes.RosbridgeMessage;
export type RosbridgeMessageBase = RoslibTypes.RosbridgeMessageBase;
export type RosbridgeCallServiceMessage = RoslibTypes.RosbridgeCallServiceMessage;
