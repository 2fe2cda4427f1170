import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as enums from './enums';
import { NetworkQuality } from './quality-stats';

// The real SDK's published files: the declarations and the (minified) implementation.
const require = createRequire(import.meta.url);
const dist = dirname(require.resolve('amazon-ivs-web-broadcast'));
const declarations = readFileSync(join(dist, 'amazon-ivs-web-broadcast.d.ts'), 'utf8');
const implementation = readFileSync(join(dist, 'amazon-ivs-web-broadcast.js'), 'utf8');

function declaredEnum(name: string): Record<string, string | number> {
  const body = new RegExp(`export declare (?:const )?enum ${name} \\{([\\s\\S]*?)\\n\\}`).exec(
    declarations,
  );
  if (!body?.[1]) throw new Error(`enum ${name} not found in the IVS declarations`);
  const members: Record<string, string | number> = {};
  for (const match of body[1].matchAll(/^\s*([A-Z_0-9]+) = ("[^"]*"|\d+),?$/gm)) {
    const [, key, raw] = match;
    if (key && raw) members[key] = raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
  }
  return members;
}

describe('local SDK against the Amazon IVS Web Broadcast SDK 1.41', () => {
  const exported = [
    'StageEvents',
    'StageConnectionState',
    'SubscribeType',
    'StageSubscribeStreamType',
    'StreamType',
    'StageLeftReason',
    'StageErrorCategory',
    'StageErrorCode',
    'StageParticipantSubscribeState',
    'StageParticipantPublishState',
    'RemoteStageStreamEvents',
    'StageStreamLayerSelectedReason',
    'InitialLayerPreference',
  ] as const;

  it.each(exported)('has the same %s members and values as the declarations', (name) => {
    expect({ ...enums[name] }).toEqual(declaredEnum(name));
  });

  it.each(exported)('has the %s values the real implementation uses at run time', (name) => {
    for (const [key, value] of Object.entries(enums[name])) {
      const pattern =
        typeof value === 'number' ? `e[e.${key}=${value}]="${key}"` : `e.${key}="${value}"`;
      expect(implementation.includes(pattern), `${name}.${key} = ${value}`).toBe(true);
    }
  });

  it('has the NetworkQuality values of the declarations (a const enum: inlined, so not at run time)', () => {
    expect({ ...NetworkQuality }).toEqual(declaredEnum('NetworkQuality'));
  });
});
