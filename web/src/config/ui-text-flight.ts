/**
 * The flight data HUD's strings (docs/product.md#flight-data), apart from `uiText` so that they
 * load with the HUD (a chunk of its own, fetched by the player), not with the app's first load
 * (its JS budget, decision 0060). Held to docs/product.md by ui-text.test.ts.
 */
export const flightText = {
  toggle: 'Flight data',
  shown: 'Flight data shown',
  hidden: 'Flight data hidden',
  altitude: 'ALT',
  groundSpeed: 'GS',
  heading: 'HDG',
  verticalSpeed: 'V/S',
  altitudeValue: '{value} ft',
  groundSpeedValue: '{value} kt',
  headingValue: '{value}°',
  verticalSpeedValue: '{value} ft/min',
  age: '{seconds} s old',
  north: 'N',
  phaseChanged: 'Flight phase: {phase}',
  phases: {
    taxi: 'Taxi',
    takeoff: 'Take-off',
    climb: 'Climb',
    cruise: 'Cruise',
    descent: 'Descent',
    approach: 'Approach',
    landing: 'Landing',
  },
} as const;
