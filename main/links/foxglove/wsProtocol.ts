// @foxglove/ws-protocol 0.8 for both module loaders. Its package.json names an ESM build under
// "module" (which vite and vitest follow) and a CommonJS one under "main" (which Node follows), and
// Node's CommonJS export detection does not see the classes the CommonJS build defines with getters,
// so `import { FoxgloveClient }` fails under Node. The namespace is read either way here, once.
import * as wsProtocolRuntime from '@foxglove/ws-protocol';

type WsProtocol = typeof wsProtocolRuntime;

const namespace = wsProtocolRuntime as WsProtocol & { default?: WsProtocol };
const wsProtocol: WsProtocol = namespace.FoxgloveClient !== undefined ? namespace : namespace.default!;

export const FoxgloveClient = wsProtocol.FoxgloveClient;
export const FoxgloveServer = wsProtocol.FoxgloveServer;
export const BinaryOpcode = wsProtocol.BinaryOpcode;
export const FetchAssetStatus = wsProtocol.FetchAssetStatus;
export type { Channel, IWebSocket, ServerInfo } from '@foxglove/ws-protocol';
export type FoxgloveClient = InstanceType<typeof FoxgloveClient>;
export type FoxgloveServer = InstanceType<typeof FoxgloveServer>;
