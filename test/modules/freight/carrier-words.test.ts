import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { carrierWords, methodWords } from '../../../src/modules/freight/carrier-words.js';

describe('carrier and service in words', () => {
  it('says the method, then the carrier and service codes for what they are', () => {
    assert.equal(carrierWords({ method: 'Road', agentCode: 'OUTBACK', serviceCode: 'STD' }), 'Road freight (carrier OUTBACK, service STD)');
    assert.equal(carrierWords({ method: 'Air', agentCode: 'TNT', serviceCode: 'EXP' }), 'Air freight (carrier TNT, service EXP)');
  });
  it('names a method it does not know as it is', () => {
    assert.equal(methodWords('Sea'), 'Sea freight');
  });
});
