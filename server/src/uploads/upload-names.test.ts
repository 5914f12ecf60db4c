import { describe, expect, it } from 'vitest';
import { baseName, cleanFileName, removeDisguisingCharacters, removeDisguisingCharactersFromPath } from '../files/index.js';
import { checkContent, checkFileName, checkUploadName } from './upload-rules.js';

describe('characters that can disguise a file name', () => {
  it.each([
    ['report\u202Egpj.dcm', 'reportgpj.dcm'],
    ['a\u200E\u200F\u061Cb.dcm', 'ab.dcm'],
    ['\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee.dcm', 'abcde.dcm'],
    ['\u2066a\u2067b\u2068c\u2069.dcm', 'abc.dcm'],
    ['zero\u200B\u2060\uFEFF\u00ADwidth.dcm', 'zerowidth.dcm'],
    ['tag\u{E0001}\u{E0041}.dcm', 'tag.dcm'],
    ['c0\u0000\u0009\u000A\u001B\u007Fc1\u0080\u0085\u009F.dcm', 'c0c1.dcm'],
    ['line\u2028para\u2029.dcm', 'linepara.dcm'],
  ])('removes them from %j', (raw, clean) => {
    expect(removeDisguisingCharacters(raw)).toBe(clean);
  });

  it('keeps the joiners that Persian, Indic and emoji spellings need, and composes to NFC', () => {
    expect(removeDisguisingCharacters('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645')).toBe('\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645');
    expect(removeDisguisingCharacters('\u{1F469}\u200D\u{1F4BB}.dcm')).toBe('\u{1F469}\u200D\u{1F4BB}.dcm');
    expect(removeDisguisingCharacters('Übe\u0301.dcm')).toBe('Üb\u00e9.dcm');
  });

  it('gives the stored name and the download name the same rule', () => {
    for (const raw of ['report\u202Egpj.dcm', 'x\u2066y\u2069.dcm', 'a\u0085b.dcm']) {
      expect(cleanFileName(checkFileName(raw))).toBe(checkFileName(raw));
    }
  });

  it('judges the extension on the cleaned name', () => {
    // Shown as 'xexe.dcm', stored as 'xmcd.exe': no accepted extension, so the content decides.
    const name = checkFileName('x\u202Emcd.exe');
    expect(name).toBe('xmcd.exe');
    expect(() => checkContent(name, Buffer.from('MZ\x90\x00 not DICOM'))).toThrow(/Only these kinds of file are accepted/);
    expect(() => checkFileName('\u202E\u200B')).toThrow('The file has no name');
  });
});

describe('the name of an uploaded file sent with a path', () => {
  it.each([
    ['../../../../tmp/x.dcm', 'x.dcm'],
    ['C:\\x\\evil.dcm', 'evil.dcm'],
    ['/etc/passwd', 'passwd'],
    ['a/b\\c.dcm', 'c.dcm'],
    ['plain.dcm', 'plain.dcm'],
    ['..', ''],
    ['x/.', ''],
    ['dir/', ''],
  ])('keeps the base name of %j', (raw, base) => {
    expect(baseName(raw)).toBe(base);
  });

  it('refuses a name that is only a path, and cleans the base name', () => {
    expect(() => checkUploadName('../')).toThrow('The file has no name');
    expect(() => checkUploadName('x/\u202E..')).toThrow('The file has no name');
    expect(checkUploadName('../a\u202Egpj.dcm')).toBe('agpj.dcm');
  });
});

describe('characters that can disguise a path inside an upload', () => {
  it.each([
    ['DICOM/SE\u2066RIES\u2069/IM\u202E1gpj.dcm', 'DICOM/SERIES/IM1gpj.dcm'],
    ['\u202E/a\u200E\u200F\u061C.dcm', 'a.dcm'],
    ['a/\u202A\u202B\u202C\u202D/b', 'a/b'],
    ['../../x\u202E.dcm', '../../x.dcm'],
    ['/abs//path', '/abs//path'],
  ])('removes them from every segment of %j', (raw, clean) => {
    expect(removeDisguisingCharactersFromPath(raw)).toBe(clean);
  });
});
