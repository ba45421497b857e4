// The one error a session's assembly raises for the operator to fix (a missing encoder manifest, a log
// that does not open): the command prints it without a stack and exits with 1.
/** Something the operator must fix before the core can start (a missing encoder manifest, say): printed without a stack, exit code 1. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
