/**
 * A receiver's `inbound-rtp` video entry of `getStats()`, the fields every test of the forwarding
 * path reads (a Node viewer's libwebrtc and Chromium report them alike); a test extends it with
 * what else it reads.
 */
import { z } from 'zod';

export const inboundVideoRtp = z.object({
  type: z.literal('inbound-rtp'),
  kind: z.literal('video'),
  packetsReceived: z.number(),
  packetsLost: z.number(),
  nackCount: z.number(),
});
