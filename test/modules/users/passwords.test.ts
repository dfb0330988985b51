import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkNewPassword, isCommonPassword } from '../../../src/modules/users/passwords.js';

/** The new-password rules, one row per reason (NIST SP 800-63B §5.1.1.2 plus the blocklist and context checks). */
describe('checkNewPassword', () => {
  const email = 'Sam.Shopper@Example.com';
  const cases: Array<[string, string, RegExp | undefined]> = [
    ['empty', '', /^Enter a password$/],
    ['too short', 'short', /10 characters or more/],
    ['too long', 'x y'.repeat(100), /256 characters or fewer/],
    ['only spaces', ' '.repeat(12), /not be only spaces/],
    ['only tabs and newlines', '\t\n'.repeat(6), /not be only spaces/],
    ['one character repeated', 'aaaaaaaaaa', /one character repeated/],
    ['ten spaces and an x', `${' '.repeat(10)}x`, /one character repeated/],
    ['one character repeated with spaces between', 'z z z z z z', /one character repeated/],
    ['a repeated emoji', '😀'.repeat(10), /one character repeated/],
    ['a common password', 'qwertyuiop', /too common/],
    ['a common password in other case', 'Password123', /too common/],
    ['a common password with spaces around', '  1234567890  ', /too common/],
    ['the whole email', 'my sam.shopper@example.com!', /email address/],
    ['the local part, any case', 'SAM.SHOPPER rules 2024', /email address/],
    ['the site name', 'my Portway account 7', /name of this site \(portway\)/],
    ['a good passphrase', 'correct horse battery', undefined],
    ['a passphrase with a short word of the email', 'example of a passphrase', undefined],
  ];
  for (const [name, password, refused] of cases) {
    it(`${name}: ${refused ? 'refused' : 'accepted'}`, () => {
      const errors = checkNewPassword(password, password, { email });
      if (refused === undefined) assert.deepEqual(errors, []);
      else {
        assert.equal(errors.length, 1, JSON.stringify(errors));
        assert.equal(errors[0]?.field, 'password');
        assert.match(errors[0]?.message ?? '', refused);
      }
    });
  }

  it('checks a local part only when it is 3 characters or more', () => {
    assert.deepEqual(checkNewPassword('a jolly good passphrase', 'a jolly good passphrase', { email: 'jo@example.com' }), []);
    assert.match(checkNewPassword('a jolly good ann phrase', 'a jolly good ann phrase', { email: 'ann@example.com' })[0]?.message ?? '', /email/);
  });

  it('without an email, only the password itself is judged; a mismatch is reported on the confirmation', () => {
    assert.deepEqual(checkNewPassword('sam.shopper rules', 'sam.shopper rules'), []);
    assert.deepEqual(checkNewPassword('correct horse battery', 'correct horse batter'), [{ field: 'confirmPassword', message: 'Passwords do not match' }]);
  });

  it('knows common passwords from the maintained list, case-insensitively', () => {
    for (const p of ['password', '123456', 'iloveyou', 'QWERTY', 'dragon']) assert.equal(isCommonPassword(p), true, p);
    assert.equal(isCommonPassword('violet tractor sandwich'), false);
  });
});
