// Why a rosbridge service call gave no answer. A real server may never answer a call it cannot
// route (it only logs), so every call has a deadline of its own.
export type ServiceCallFailure =
  /** There was no open connection: the call was not sent (and is never queued for later). */
  | 'not-connected'
  /** The connection dropped before the answer came. */
  | 'disconnected'
  /** No answer within the caller's deadline. */
  | 'timeout'
  /** The server answered with `result: false` (e.g. the service does not exist). */
  | 'failed';

export class ServiceCallError extends Error {
  override name = 'ServiceCallError';

  constructor(
    readonly failure: ServiceCallFailure,
    readonly service: string,
    message: string,
  ) {
    super(message);
  }
}
