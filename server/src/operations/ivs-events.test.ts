import { describe, expect, it } from 'vitest';
import { parseStageArns } from '../config-values';
import { eventId, localSessionId, offAirEvent, stageUpdateEvent } from './ivs-events';

const published = {
  seq: 7,
  time: '2026-11-29T12:00:01.234Z',
  stageId: 'N743AS',
  name: 'Participant Published' as const,
  role: 'publisher' as const,
  participantId: 'b0b7a1e2-6a63-4b35-9c3e-0f3c1b9f4a11',
  userId: 'encoder-n743as',
};

describe('events in the shape of IVS EventBridge', () => {
  it('gives a stage event the fields of an "IVS Stage Update", and nothing else', () => {
    const event = stageUpdateEvent('run-1', published);
    expect(event).toEqual({
      version: '0',
      id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      'detail-type': 'IVS Stage Update',
      source: 'aws.ivs',
      account: '000000000000',
      time: '2026-11-29T12:00:01Z',
      region: 'local',
      resources: ['arn:aws:ivs:local:000000000000:stage/N743AS'],
      detail: {
        session_id: localSessionId('run-1', 'N743AS'),
        event_name: 'Participant Published',
        user_id: 'encoder-n743as',
        participant_id: published.participantId,
      },
    });
    // IVS's own patterns (ListParticipantEvents' stageArn and sessionId).
    expect(event.resources[0]).toMatch(/^arn:aws:ivs:[a-z0-9-]+:[0-9]+:stage\/[a-zA-Z0-9-]+$/);
    expect(event.detail.session_id).toMatch(/^st-[a-zA-Z0-9]{13}$/);
    // Tailcam's own IVS_STAGE_ARNS takes it too.
    expect(parseStageArns(`N743AS=${event.resources[0]}`).problems).toEqual([]);
  });

  it('gives a redelivered event the same id, and another event another', () => {
    expect(stageUpdateEvent('run-1', published).id).toBe(stageUpdateEvent('run-1', published).id);
    expect(stageUpdateEvent('run-1', { ...published, seq: 8 }).id).not.toBe(
      stageUpdateEvent('run-1', published).id,
    );
    expect(stageUpdateEvent('run-2', published).id).not.toBe(
      stageUpdateEvent('run-1', published).id,
    );
    expect(eventId('a')).not.toBe(eventId('b'));
  });

  it("says an aircraft is off air in Tailcam's own source, since its publisher went", () => {
    const event = offAirEvent({
      aircraft: 'N743AS',
      since: '2026-11-29T12:00:01.234Z',
      time: '2026-11-29T12:00:11.300Z',
      graceSeconds: 10,
    });
    expect(event).toMatchObject({
      'detail-type': 'Tailcam Aircraft Off Air',
      source: 'tailcam',
      time: '2026-11-29T12:00:11Z',
      resources: ['arn:aws:ivs:local:000000000000:stage/N743AS'],
      detail: {
        event_name: 'Off Air',
        aircraft: 'N743AS',
        off_air_since: '2026-11-29T12:00:01.234Z',
        grace_seconds: 10,
      },
    });
    expect(event.id).toBe(
      offAirEvent({
        aircraft: 'N743AS',
        since: '2026-11-29T12:00:01.234Z',
        time: '2026-11-29T12:05:00.000Z',
        graceSeconds: 10,
      }).id,
    );
  });
});
