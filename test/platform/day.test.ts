import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isTimeZone, siteDay } from '../../src/platform/day.js';

describe('siteDay: the calendar date at an instant in the site time zone', () => {
  const cases: Array<[string, string, string]> = [
    ['2026-11-24T13:59:59Z', 'UTC', '2026-11-24'],
    ['2026-11-24T13:00:00Z', 'Australia/Sydney', '2026-11-25'], // UTC+11 in summer
    ['2026-11-24T12:59:59Z', 'Australia/Sydney', '2026-11-24'],
    ['2026-11-24T03:00:00Z', 'America/New_York', '2026-11-23'],
    ['0099-03-01T12:00:00Z', 'UTC', '0099-03-01'],
  ];
  for (const [instant, zone, day] of cases) {
    it(`${instant} in ${zone} is ${day}`, () => assert.equal(siteDay(new Date(instant), zone), day));
  }
});

describe('isTimeZone', () => {
  it('knows IANA names and refuses others', () => {
    assert.equal(isTimeZone('UTC'), true);
    assert.equal(isTimeZone('Australia/Perth'), true);
    assert.equal(isTimeZone('Mars/Olympus'), false);
    assert.equal(isTimeZone(''), false);
  });
});

describe('siteDay within one UTC minute and across it', () => {
  it('answers each instant of a minute alike and moves on with the next minute', () => {
    // 13:00Z is midnight in Sydney (UTC+11): the minute before is still the 24th.
    assert.equal(siteDay(new Date('2026-11-24T12:59:00.000Z'), 'Australia/Sydney'), '2026-11-24');
    assert.equal(siteDay(new Date('2026-11-24T12:59:59.999Z'), 'Australia/Sydney'), '2026-11-24');
    assert.equal(siteDay(new Date('2026-11-24T13:00:00.000Z'), 'Australia/Sydney'), '2026-11-25');
    assert.equal(siteDay(new Date('2026-11-24T12:59:30.000Z'), 'Australia/Sydney'), '2026-11-24', 'going back a minute is computed again');
    assert.equal(siteDay(new Date('2026-11-24T12:59:30.000Z'), 'UTC'), '2026-11-24');
  });
});
