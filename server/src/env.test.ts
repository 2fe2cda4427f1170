import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config';
import { exportAwsVariables, readEnv } from './env';
import { tempDir } from './test/helpers';

describe('the environment', () => {
  it('hands AWS variables from .env to the AWS SDK, without overriding the environment', () => {
    const target: Record<string, string | undefined> = { AWS_REGION: 'eu-west-1' };
    exportAwsVariables({ AWS_REGION: 'us-east-1', AWS_PROFILE: 'tailcam', PORT: '9000' }, target);
    expect(target).toEqual({ AWS_REGION: 'eu-west-1', AWS_PROFILE: 'tailcam' });
  });

  it('reads .env from the repository root, with the environment taking precedence', () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), 'PORT=9000\nHOST=0.0.0.0\n# comment\nLOG_LEVEL="debug"\n');
    const config = parseConfig(readEnv(dir, { PORT: '9100' }), dir);
    expect(config.port).toBe(9100);
    expect(config.host).toBe('0.0.0.0');
    expect(config.logLevel).toBe('debug');
  });

  it('is the process environment alone when there is no .env', () => {
    expect(readEnv(tempDir(), { PORT: '9100' })).toEqual({ PORT: '9100' });
  });
});
