// A command that runs until the operator stops it (Ctrl-C, or the desktop shell's SIGTERM).
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}
