import { describe, expect, it } from 'vitest';
import { formatPersonName } from './person-name.js';

describe('formatPersonName', () => {
  it('writes family, given and middle names as people read them', () => {
    expect(formatPersonName('Doe^John')).toBe('Doe, John');
    expect(formatPersonName('Doe^John^Adam^Dr^Jr')).toBe('Dr Doe, John Adam Jr');
    expect(formatPersonName('Doe')).toBe('Doe');
    expect(formatPersonName('^John')).toBe('John');
    expect(formatPersonName('Anonymized')).toBe('Anonymized');
  });

  it('puts the ideographic form after the alphabetic one, and uses the phonetic one only alone', () => {
    expect(formatPersonName('Yamada^Tarou=山田^太郎=やまだ^たろう')).toBe('Yamada, Tarou (山田 太郎)');
    expect(formatPersonName('Wang^XiaoDong=王^小東=')).toBe('Wang, XiaoDong (王 小東)');
    expect(formatPersonName('=山田^太郎')).toBe('山田 太郎');
    expect(formatPersonName('==やまだ^たろう')).toBe('やまだ たろう');
  });

  it('answers null when the value names nobody', () => {
    expect(formatPersonName('^^^^')).toBeNull();
    expect(formatPersonName('==')).toBeNull();
    expect(formatPersonName(null)).toBeNull();
  });
});
