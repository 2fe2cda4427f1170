import { describe, expect, it } from 'vitest';
import { conditionRules, describeConditions, rateArgs } from './link-conditions';

describe('a link condition in kernel settings', () => {
  it('drops before it queues, in both directions, and hooks its chains only the first time', () => {
    const rules = conditionRules(
      'viewer',
      { udpBlocked: true, lossPercent: 5, delayMs: 40 },
      7,
      true,
    );
    expect(rules.split('\n')).toEqual([
      '*filter',
      ':lab-viewer-in - [0:0]',
      ':lab-viewer-out - [0:0]',
      '-A FORWARD -i viewer -j lab-viewer-in',
      '-A INPUT -i viewer -j lab-viewer-in',
      '-A FORWARD -o viewer -j lab-viewer-out',
      '-A lab-viewer-in -p udp -j DROP',
      '-A lab-viewer-in -m statistic --mode random --probability 0.05 -j DROP',
      '-A lab-viewer-out -p udp -j DROP',
      '-A lab-viewer-out -m statistic --mode random --probability 0.05 -j DROP',
      'COMMIT',
      '*mangle',
      ':lab-viewer-delay - [0:0]',
      '-A PREROUTING -i viewer -j lab-viewer-delay',
      '-A POSTROUTING -o viewer -j lab-viewer-delay',
      '-A lab-viewer-delay -j NFQUEUE --queue-num 7',
      'COMMIT',
      '',
    ]);
  });

  it('leaves empty chains, and never an OUTPUT rule, when the conditions are cleared', () => {
    const rules = conditionRules('viewer', {}, 8, false);
    expect(rules).not.toMatch(/DROP|NFQUEUE|OUTPUT|-A (FORWARD|INPUT|PREROUTING|POSTROUTING)/);
    expect(rules).toContain(':lab-viewer-in - [0:0]');
  });

  it('gives a tbf a bucket of 20 ms of its rate, at least 4 KB, and removes it with no rate', () => {
    expect(rateArgs('eth0', 8_000)).toEqual(
      'qdisc replace dev eth0 root tbf rate 8000kbit burst 20000 latency 100ms'.split(' '),
    );
    expect(rateArgs('eth0', 500)).toContain('4096');
    expect(rateArgs('eth0', undefined)).toEqual(['qdisc', 'del', 'dev', 'eth0', 'root']);
  });

  it('says the conditions in words', () => {
    expect(describeConditions({ rateKbit: 2_000, delayMs: 40, udpBlocked: true })).toBe(
      'rate 2000 kbit/s, delay 40 ms each way, UDP blocked',
    );
    expect(describeConditions({})).toBe('no conditions');
  });
});
