import t from 'tap';
import { constantTimeEqual, hashSecret } from './secret.ts';

t.test('hashSecret is SHA-256 hex of the UTF-8 text', async (t) => {
  t.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'FIPS 180-2 vector');
  t.equal(hashSecret(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  t.not(hashSecret('\u00e9'), hashSecret('e\u0301'), 'no Unicode normalization: secrets are compared byte for byte');
  t.match(hashSecret('alpr_x'), /^[0-9a-f]{64}$/);
});

t.test('constantTimeEqual', async (t) => {
  t.equal(constantTimeEqual('alpr_abc', 'alpr_abc'), true);
  t.equal(constantTimeEqual('', ''), true);
  t.equal(constantTimeEqual('alpr_abc', 'alpr_abd'), false, 'same length, one character differs');
  t.equal(constantTimeEqual('alpr_abc', 'alpr_abcd'), false, 'unequal lengths do not throw');
  t.equal(constantTimeEqual('', 'x'.repeat(10_000)), false, 'empty against long');
  t.equal(constantTimeEqual('ABC', 'abc'), false, 'case-sensitive');
  t.equal(constantTimeEqual('\u00e9', 'e\u0301'), false, 'different bytes');
});
