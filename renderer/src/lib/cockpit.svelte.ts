// The cockpit's live view of the core: connection status, the latest state, the latest camera and
// scan frames, and one narrow method per request the operator can make.
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import {
  Request,
  type CameraFrame,
  type CockpitState,
  type DriveValue,
  type Event,
  type ScanFrame,
} from './contract.ts';
import { CoreSocket, type CoreLinkStatus, type OpenSocket } from './coreSocket.ts';
import { RateMeter } from './rateMeter.ts';
import { Toasts } from './toasts.svelte.ts';

const RATE_REFRESH_MS = 500;
/** The same problem is logged at most this often, so a misbehaving core cannot flood the console. */
const PROBLEM_LOG_EVERY_MS = 5000;

export class Cockpit {
  status = $state<CoreLinkStatus>('connecting');
  state = $state.raw<CockpitState | undefined>(undefined);
  camera = $state.raw<CameraFrame | undefined>(undefined);
  cameraFps = $state(0);
  scan = $state.raw<ScanFrame | undefined>(undefined);
  scanHz = $state(0);
  failedAttempts = $state(0);
  readonly toasts = new Toasts();

  readonly #socket: CoreSocket;
  readonly #clock: Clock;
  readonly #cameraRate = new RateMeter();
  readonly #scanRate = new RateMeter();
  readonly #problemLoggedAtMs = new Map<string, number>();
  #rateTimer: number | undefined;

  constructor(url: string, openSocket: OpenSocket, clock: Clock = systemClock) {
    this.#clock = clock;
    this.#socket = new CoreSocket(
      { url, openSocket, clock },
      {
        status: (status) => {
          this.status = status;
          this.failedAttempts = this.#socket.failedAttempts;
        },
        event: (event) => this.#onEvent(event),
        frame: (frame) => {
          const nowMs = this.#clock.nowMs();
          if (frame.kind === 'camera') {
            this.camera = frame;
            this.#cameraRate.record(nowMs);
          } else {
            this.scan = frame;
            this.#scanRate.record(nowMs);
          }
        },
        problem: (message) => this.#logProblem(message),
      },
    );
  }

  start(): void {
    this.#socket.start();
    this.#rateTimer = this.#clock.setInterval(() => {
      const nowMs = this.#clock.nowMs();
      this.cameraFps = this.#cameraRate.rateHz(nowMs);
      this.scanHz = this.#scanRate.rateHz(nowMs);
      this.failedAttempts = this.#socket.failedAttempts;
    }, RATE_REFRESH_MS);
  }

  stop(): void {
    this.#socket.stop();
    if (this.#rateTimer !== undefined) this.#clock.clearInterval(this.#rateTimer);
  }

  estop(): void {
    this.#send({ type: 'estop' }, 'E-stop not sent. The core stops the robot on its own once the cockpit falls silent.');
  }

  releaseEstop(heldMs: number): void {
    this.#send({ type: 'estop-release', heldMs: Math.round(heldMs) }, 'E-stop release not sent.');
  }

  takeOver(): void {
    this.#send({ type: 'take-over' }, 'Take over not sent.');
  }

  handBack(): void {
    this.#send({ type: 'hand-back' }, 'Hand back not sent.');
  }

  setAutonomy(enabled: boolean): void {
    this.#send({ type: 'set-autonomy', enabled }, 'Autonomy change not sent.');
  }

  setSpeedLimits(maxLinearMps: number, maxAngularRadps: number): void {
    this.#send({ type: 'set-speed-limits', maxLinearMps, maxAngularRadps }, 'Speed limits not sent.');
  }

  /** Drive commands are too frequent to report one by one; the connection banner covers them. */
  drive(command: DriveValue): void {
    this.#send({ type: 'drive', ...command }, undefined);
  }

  #send(request: Request, notSentMessage: string | undefined): void {
    const checked = Request.safeParse(request);
    if (!checked.success) {
      // A bug in the cockpit, not something the operator did: say so rather than send it.
      console.error('[reins] refusing to send an invalid request', request, checked.error.issues);
      this.toasts.push('error', `Cockpit bug: invalid '${request.type}' request not sent`);
      return;
    }
    if (!this.#socket.send(checked.data) && notSentMessage) {
      this.toasts.push('error', `Not connected to core: ${notSentMessage}`);
    }
  }

  #onEvent(event: Event): void {
    switch (event.type) {
      case 'hello':
      case 'state':
        this.state = event.state;
        break;
      case 'error':
        this.toasts.push('error', event.error.message);
        break;
      case 'ack':
        break;
    }
  }

  #logProblem(message: string): void {
    const nowMs = this.#clock.nowMs();
    const lastMs = this.#problemLoggedAtMs.get(message);
    if (lastMs !== undefined && nowMs - lastMs < PROBLEM_LOG_EVERY_MS) return;
    this.#problemLoggedAtMs.set(message, nowMs);
    console.warn(`[reins] ${message}`);
  }
}
