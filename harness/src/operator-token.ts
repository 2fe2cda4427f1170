/**
 * What an operator's `npm run publish-token -- STREAM_ID` (WHIP) or `npm run subscribe-token --
 * STREAM_ID` (WHEP) prints for an instance, run with that instance's environment.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from './root';

const PRINTED = {
  'publish-token': { url: 'WHIP_URL', token: 'PUBLISH_TOKEN' },
  'subscribe-token': { url: 'WHEP_URL', token: 'SUBSCRIBE_TOKEN' },
} as const;

export type OperatorCommand = keyof typeof PRINTED;

/** The URL and token the command prints; throws with its output when it fails. */
export function operatorToken(
  command: OperatorCommand,
  streamId: string,
  env: NodeJS.ProcessEnv,
): { url: string; token: string } {
  const result = spawnSync('npm', ['run', '--silent', command, '--', streamId], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const printed = PRINTED[command];
  const url = new RegExp(`^${printed.url}=(\\S+)$`, 'm').exec(result.stdout)?.[1];
  const token = new RegExp(`^${printed.token}=(\\S+)$`, 'm').exec(result.stdout)?.[1];
  if (result.status !== 0 || !url || !token) {
    throw new Error(`npm run ${command} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return { url, token };
}
