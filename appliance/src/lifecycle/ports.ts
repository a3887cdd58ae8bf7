import type { HubPins } from './hub-pins.ts';
import type { ApplianceConfig } from '../config/schema.ts';
import type { Vault } from '../vault/vault.ts';
import type { Timers, UplinkLog } from '../uplink/ports.ts';
import type { HealthSample } from './health.ts';

/**
 * What the command runner needs from the process. main.ts provides the callbacks; tests
 * hand in fakes for the parts that are the rest of the appliance (runners, uplink).
 */
export type { Clock, Random, Timers } from '../uplink/ports.ts';
export type LifecycleLog = UplinkLog;

export interface WatchSettings {
  /** How long a new configuration is watched before `success` (default 120 s). */
  periodMs: number;
  /** How often health is sampled during the watch (default 5 s). */
  sampleMs: number;
}

export const DEFAULT_WATCH: WatchSettings = { periodMs: 120_000, sampleMs: 5_000 };

/** How a heartbeat sent just now with the key in use was answered. */
export type KeyProof = 'ok' | 'key_rejected' | 'unreachable';

/** The one API key every hub call reads (uplink, heartbeat, acks); main.ts holds it. */
export interface ApiKeyCell {
  current(): string | undefined;
  /** From now on every request carries this key (no restart). */
  use(apiKey: string): void;
  /** One heartbeat now with the key in use. */
  prove(): Promise<KeyProof>;
}

export interface CommandRunnerDeps {
  collectorId: string;
  /** The hub's Ed25519 key from the claim (sealed in credentials.enc). */
  hubPublicKey: string;
  dataDir: string;
  centralConfigFile: string;
  localConfigFile: string;
  vault: Vault;
  /** The API key in use, switched by a rotate_key command. */
  keys: ApiKeyCell;
  /** The central layer's version at start (readCentralLayer / loadConfigWithCredentials). */
  initialConfigVersion: number;
  /** Restart camera runners and uplink with this configuration. Throwing counts as a failure. */
  applyConfig(config: ApplianceConfig): Promise<void>;
  health(): HealthSample;
  /** Wipe step 1: stop runners, uplink, local server, close the buffer (no timers left). */
  stop(): Promise<void>;
  /** Wipe last step, after the ack: start again unclaimed (setup page open). */
  restart(): Promise<void>;
  log: LifecycleLog;
  timers: Timers;
  watch?: Partial<WatchSettings>;
  /** Hub certificate pins, changed by a trust_hub_certificate command (hub-pins.ts). */
  hubPins?: HubPins;
}

export const sleep = (timers: Timers, ms: number): Promise<void> =>
  new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
