/**
 * The doctor's network lines: what the local stage announces to peers (read from the stage's own
 * variables through the stage's own schema, @tailcam/protocol/stage-network, so the doctor can
 * say it before the stage runs, from the same environment `npm start` gives the stage), and
 * whether `PUBLIC_URL` sends a login over plain http beyond this machine.
 */
import { z } from 'zod';
import {
  announcedHostAddresses,
  describeAnnounced,
  stageNetworkProblem,
  stageNetworkSettings,
  stageNetworkVariables,
  unreachableBeyondWarning,
  type Interfaces,
  type Lookup,
} from '@tailcam/protocol/stage-network';
import type { Config } from '../config';
import type { Env } from '../env';
import type { CheckResult } from './check-result';

export interface NetworkCheckOptions {
  /** The host's interfaces (tests give their own). */
  interfaces?: Interfaces;
  /** Resolves a DNS name (tests give their own). */
  lookup?: Lookup;
}

const NAME = 'stage network';
const schema = z.object(stageNetworkVariables);

export async function checkStageNetwork(
  config: Config,
  env: Env,
  options: NetworkCheckOptions = {},
): Promise<CheckResult> {
  if (config.stageProvider !== 'local') {
    return { status: 'SKIP', name: NAME, detail: 'STAGE_PROVIDER=ivs: IVS announces its own' };
  }
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    return {
      status: 'FAIL',
      name: NAME,
      detail: parsed.error.issues.map((issue) => issue.message).join('; '),
    };
  }
  const settings = stageNetworkSettings(parsed.data);
  const problem = stageNetworkProblem(settings);
  if (problem !== undefined) return { status: 'FAIL', name: NAME, detail: problem };
  let addresses;
  try {
    addresses = await announcedHostAddresses(settings, options);
  } catch (error) {
    return { status: 'FAIL', name: NAME, detail: (error as Error).message };
  }
  const range = settings.udpPorts;
  const ports =
    range === undefined
      ? 'any UDP port (STAGE_UDP_PORTS unset: no firewall rule can name them)'
      : range.min === range.max
        ? `UDP ${range.min} (one port for every peer connection)`
        : `UDP ${range.min}-${range.max} (${range.max - range.min + 1} ports, one per peer connection and address)`;
  const detail = `the stage announces ${addresses.map(describeAnnounced).join(', ')} on ${ports}`;
  const warning = unreachableBeyondWarning(settings, addresses);
  return warning === undefined
    ? { status: 'PASS', name: NAME, detail }
    : { status: 'WARN', name: NAME, detail: `${detail}; ${warning}` };
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Plain http to an address beyond this machine: logins and tokens cross the network readable. */
export function checkPublicUrl(config: Config): CheckResult {
  const name = 'public URL';
  const publicUrl = config.publicUrl;
  if (publicUrl === undefined) {
    return {
      status: 'SKIP',
      name,
      detail: 'PUBLIC_URL unset: encoders and players are told localhost',
    };
  }
  const url = new URL(publicUrl);
  if (url.protocol === 'https:') return { status: 'PASS', name, detail: `${publicUrl} is https` };
  if (LOOPBACK_HOST.test(url.hostname)) {
    return { status: 'PASS', name, detail: `${publicUrl} is plain http on this machine only` };
  }
  return {
    status: 'WARN',
    name,
    detail: `PUBLIC_URL ${publicUrl} is plain http on an address beyond this machine: passwords and participant tokens cross the network readable, and browsers there give the page no secure context. Serve it over https behind a reverse proxy (docs/deployment.md)`,
  };
}
