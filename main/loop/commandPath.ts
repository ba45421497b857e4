// The one way a command leaves the cockpit: through the safety filter, onto the link. It also keeps
// the publishing rules: publish while someone drives, one zero at every stop, nothing while idle.
import type { Driver, SentCommand } from '../core/tickReport.ts';
import type { Link } from '../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../core/messages.ts';
import type { SafetyFilter } from '../safety/safetyFilter.ts';

export class CommandPath {
  private moving = false;
  private last: SentCommand | undefined;
  private readonly listeners = new Set<(sent: SentCommand) => void>();

  constructor(
    private readonly link: Link,
    private readonly commandTopic: string,
    private readonly safety: SafetyFilter,
  ) {}

  lastSent(): SentCommand | undefined {
    return this.last;
  }

  onSent(listener: (sent: SentCommand) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a driver's command through the safety filter. Returns what actually went out. */
  drive(driver: 'operator' | 'policy', requested: DriveCommand, nowMs: number): SentCommand {
    this.moving = true;
    return this.send(this.safety.filter(requested, nowMs), driver, nowMs, requested);
  }

  /** Called when nobody drives: one zero at the moment driving stops, then silence. */
  idle(nowMs: number): SentCommand | undefined {
    if (!this.moving) return undefined;
    this.moving = false;
    return this.send(this.safety.stop(nowMs), 'idle', nowMs);
  }

  /** While e-stopped: a zero every time this is called (on arrival and at every tick). */
  holdStopped(nowMs: number): SentCommand {
    this.moving = false;
    return this.send(this.safety.stop(nowMs), 'estopped', nowMs);
  }

  private send(command: DriveCommand, driver: Driver, nowMs: number, requested: DriveCommand = command): SentCommand {
    const delivered = this.link.publish(this.commandTopic, twistFromDrive(command));
    const clipped = command.linearMps !== requested.linearMps || command.angularRadps !== requested.angularRadps;
    const sent = { command, requested: { ...requested }, clipped, driver, atMs: nowMs, delivered };
    this.last = sent;
    for (const listener of this.listeners) listener(sent);
    return sent;
  }
}
