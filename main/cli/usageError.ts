// A mistake in how a command was called: the command line prints it with the usage and exits with 2.
/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
