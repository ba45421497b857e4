import { describe, expect, it } from 'vitest';
import { RecordingLink } from '../../test/fakes/recordingLink.ts';
import { SafetyFilter } from '../safety/safetyFilter.ts';
import { CommandPath } from './commandPath.ts';

const limits = { maxLinearMps: 0.5, maxAngularRadps: 1.5, maxLinearAccelMps2: 10, maxAngularAccelRadps2: 40 };

describe('CommandPath', () => {
  it('sends what the safety filter allows and records the request beside it', () => {
    const link = new RecordingLink();
    const path = new CommandPath(link, '/cmd_vel', new SafetyFilter(limits));
    const sent = path.drive('policy', { linearMps: 2, angularRadps: 0.1 }, 0);
    expect(sent).toMatchObject({ command: { linearMps: 0.5, angularRadps: 0.1 }, requested: { linearMps: 2, angularRadps: 0.1 }, clipped: true });
    expect(link.published[0]!.twist.linearMps.x).toBe(0.5);
    expect(path.drive('policy', { linearMps: 0.2, angularRadps: 0.1 }, 100).clipped).toBe(false);
  });

  it('sends one zero when driving stops, then nothing', () => {
    const link = new RecordingLink();
    const path = new CommandPath(link, '/cmd_vel', new SafetyFilter(limits));
    expect(path.idle(0)).toBeUndefined();
    path.drive('operator', { linearMps: 0.3, angularRadps: 0 }, 0);
    expect(path.idle(100)?.command).toEqual({ linearMps: 0, angularRadps: 0 });
    expect(path.idle(200)).toBeUndefined();
    expect(link.published).toHaveLength(2);
  });

  it('reports a command dropped by a link that is down, and never resends it', () => {
    const link = new RecordingLink();
    const path = new CommandPath(link, '/cmd_vel', new SafetyFilter(limits));
    link.up = false;
    expect(path.drive('operator', { linearMps: 0.3, angularRadps: 0 }, 0).delivered).toBe(false);
    link.up = true;
    path.holdStopped(100);
    expect(link.published.map((p) => p.twist.linearMps.x)).toEqual([0]);
  });
});
