/** The stage most of its tests start: on a free loopback port, faults off unless asked. */
import { startLocalStage, type RunningStage } from '../server/start';

type StageOptions = Parameters<typeof startLocalStage>[0];

export function startTestStage(
  options: Pick<StageOptions, 'secret'> & Partial<StageOptions>,
): Promise<RunningStage> {
  return startLocalStage({ host: '127.0.0.1', port: 0, faultsEnabled: false, ...options });
}
