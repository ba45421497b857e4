// The simulated robot's ground truth for the soak's scripted operator, read as another rosbridge
// client reads it (`/sim/ground_truth`, JSON): the operator, like a person beside the robot, sees
// the true pose and map; the core sees only the sensors. The newest message is kept, nothing queued.
import WebSocket from 'ws';
import type { GroundTruth } from '../../sim/simRobot.ts';

const GROUND_TRUTH_TOPIC = '/sim/ground_truth';

export class GroundTruthFeed {
  private newest: GroundTruth | undefined;
  private messages = 0;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const op = JSON.parse(String(data)) as { op?: string; topic?: string; msg?: Record<string, unknown> };
      if (op.op !== 'publish' || op.topic !== GROUND_TRUTH_TOPIC || op.msg === undefined) return;
      const { header: _header, ...fields } = op.msg;
      this.newest = camelCased(fields) as unknown as GroundTruth;
      this.messages++;
    });
  }

  /** Subscribes at `rateHz` (the server throttles); resolves once the socket is open. */
  static open(url: string, rateHz: number): Promise<GroundTruthFeed> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('error', reject);
      socket.once('open', () => {
        socket.off('error', reject);
        // A lost socket ends the feed; the operator then stops supervising (latest() goes stale).
        socket.on('error', () => undefined);
        socket.send(
          JSON.stringify({
            op: 'subscribe',
            id: 'soak-ground-truth',
            topic: GROUND_TRUTH_TOPIC,
            type: 'reins_sim/GroundTruth',
            throttle_rate: Math.round(1000 / rateHz),
            queue_length: 1,
          }),
        );
        resolve(new GroundTruthFeed(socket));
      });
    });
  }

  latest(): GroundTruth | undefined {
    return this.newest;
  }

  received(): number {
    return this.messages;
  }

  close(): void {
    this.socket.close();
  }
}

/** ROS field names back to the robot's own (`goal_distance_m` → `goalDistanceM`), all the way down. */
function camelCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCased);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, field]) => [key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase()), camelCased(field)]),
  );
}
