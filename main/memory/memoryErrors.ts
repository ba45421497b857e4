// What can go wrong at memory's edges, each with a message that names the culprit.

/** A row refused at the edge: the field and the reason are in the message; nothing else is lost. */
export class MemoryRowError extends Error {
  override readonly name = 'MemoryRowError';
  constructor(
    readonly table: string,
    readonly field: string,
    reason: string,
  ) {
    super(`${table} row refused: ${field} ${reason}`);
  }
}

/** The memory location cannot be used: missing, a file, a foreign or corrupt folder, a bad schema. */
export class MemoryOpenError extends Error {
  override readonly name = 'MemoryOpenError';
  constructor(
    readonly uri: string,
    reason: string,
    readonly hint: string,
    options?: ErrorOptions,
  ) {
    super(`memory at ${uri}: ${reason}`, options);
  }
}

/** A LanceDB error's message without the Rust source locations it carries (…/object_store.rs:984:21). */
export function describeLanceError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/,?\s*\/\S+\.rs:\d+:\d+/g, '').trim();
}
