// The core's one alert type: what every part (links, encoders, the world model, learning, recording)
// raises for the operator. Keyed, so raising the same key again replaces the alert instead of adding one.
export interface CoreAlert {
  /** Stable key: raising the same key again replaces the alert instead of adding one. */
  key: string;
  severity: 'info' | 'warn' | 'error';
  message: string;
  /** What the operator can do about it. */
  hint?: string;
}
