import { describe, expect, it } from 'vitest';
import { Arbiter, OPERATOR_COMMAND_TTL_MS } from './arbiter.ts';

const forward = { linearMps: 0.3, angularRadps: 0 };
const zero = { linearMps: 0, angularRadps: 0 };

describe('Arbiter', () => {
  it('is idle until someone drives, and only the operator drives with autonomy off', () => {
    const arbiter = new Arbiter();
    expect(arbiter.driver(0, true)).toBe('idle');
    arbiter.operatorDrive(forward, 0);
    expect(arbiter.driver(0, true)).toBe('operator');
    arbiter.operatorDrive(zero, 100);
    expect(arbiter.driver(100, true)).toBe('idle');
  });

  it('lets the policy drive only with autonomy on', () => {
    const arbiter = new Arbiter();
    arbiter.setAutonomy(true);
    expect(arbiter.driver(0, true)).toBe('policy');
    arbiter.setAutonomy(false);
    expect(arbiter.driver(0, true)).toBe('idle');
  });

  it('takes over (latched) when the operator drives while the policy drives', () => {
    const arbiter = new Arbiter();
    arbiter.setAutonomy(true);
    expect(arbiter.operatorDrive(forward, 0)).toBe(true);
    arbiter.operatorDrive(zero, 100);
    expect(arbiter.driver(100, true)).toBe('operator');
    expect(arbiter.operatorCommandAt(100)).toEqual(zero);
    arbiter.handBack();
    expect(arbiter.driver(100, true)).toBe('policy');
  });

  it('treats a stale operator command as released', () => {
    const arbiter = new Arbiter();
    arbiter.operatorDrive(forward, 0);
    expect(arbiter.operatorCommandAt(OPERATOR_COMMAND_TTL_MS)).toEqual(forward);
    expect(arbiter.driver(OPERATOR_COMMAND_TTL_MS + 1, true)).toBe('idle');
  });

  it('puts e-stop above everyone, and releases to idle with autonomy off', () => {
    const arbiter = new Arbiter();
    arbiter.setAutonomy(true);
    arbiter.operatorDrive(forward, 0);
    arbiter.estop();
    expect(arbiter.driver(0, true)).toBe('estopped');
    expect(arbiter.operatorDrive(forward, 10)).toBe(false);
    expect(arbiter.driver(10, true)).toBe('estopped');
    arbiter.releaseEStop();
    expect(arbiter.driver(10, true)).toBe('idle');
    expect(arbiter.isAutonomous()).toBe(false);
  });

  it('lets nobody drive without an operator present', () => {
    const arbiter = new Arbiter();
    arbiter.setAutonomy(true);
    arbiter.operatorDrive(forward, 0);
    expect(arbiter.driver(0, false)).toBe('idle');
  });
});
