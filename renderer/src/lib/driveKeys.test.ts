import { describe, expect, it } from 'vitest';
import { driveDirectionForCode, driveFromDirections } from './driveKeys.ts';

const LIMITS = { maxLinearMps: 1, maxAngularRadps: 2 };

describe('drive keys', () => {
  it('maps W A S D and the arrows to directions by physical key', () => {
    expect(['KeyW', 'ArrowUp', 'KeyS', 'ArrowDown', 'KeyA', 'ArrowLeft', 'KeyD', 'ArrowRight'].map(driveDirectionForCode)).toEqual([
      'forward',
      'forward',
      'back',
      'back',
      'left',
      'left',
      'right',
      'right',
    ]);
    expect(driveDirectionForCode('KeyT')).toBeUndefined();
    expect(driveDirectionForCode('toString')).toBeUndefined();
  });

  it('drives forward at 0.5 m/s and turns at 1 rad/s, left positive', () => {
    expect(driveFromDirections(['forward'], LIMITS)).toEqual({ linearMps: 0.5, angularRadps: 0 });
    expect(driveFromDirections(['back'], LIMITS)).toEqual({ linearMps: -0.5, angularRadps: 0 });
    expect(driveFromDirections(['left'], LIMITS)).toEqual({ linearMps: 0, angularRadps: 1 });
    expect(driveFromDirections(['forward', 'right'], LIMITS)).toEqual({ linearMps: 0.5, angularRadps: -1 });
  });

  it('caps the keyboard speeds at the speed limits', () => {
    expect(driveFromDirections(['back', 'left'], { maxLinearMps: 0.2, maxAngularRadps: 0.4 })).toEqual({ linearMps: -0.2, angularRadps: 0.4 });
  });

  it('cancels opposite keys to a plain zero', () => {
    const command = driveFromDirections(['forward', 'back', 'left', 'right'], LIMITS);
    expect(command).toEqual({ linearMps: 0, angularRadps: 0 });
    expect(Object.is(command.linearMps, -0)).toBe(false);
  });
});
