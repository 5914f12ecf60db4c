import type { AxiosError } from 'axios';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatUserError } from '../lib/error-mapping';
import { answerApiWith, fakeApi } from '../test/fake-api';
import { aFile } from '../test/fixtures';
import { attachmentName, downloadEntry, downloadProjectFile } from './download-file';

const LINK = '/api/v1/dl/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
const settings = (bytes: number) => ({ status: 200, data: { data: [{ in_page_max_bytes: bytes }] } });
const linkAnswer = { status: 201, data: { data: [{ url: LINK, expires_at: '2026-01-01T00:01:00.000Z' }] } };

/** Every hidden link the code clicks: where it points and the name it asks for. */
let clicked: { href: string; download: string }[];

beforeEach(() => {
  clicked = [];
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
  });
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:saved'), revokeObjectURL: vi.fn() });
});
afterEach(() => vi.restoreAllMocks());

describe('downloadProjectFile', () => {
  it('reads a file up to the server’s size in the page, with progress, and saves it under its name', async () => {
    const api = fakeApi({
      'GET /download-links/settings': settings(1000),
      'GET /download-study-petitions-files/7': { status: 200, data: new Blob(['bytes']) },
    });
    const progress = vi.fn();
    const outcome = await downloadProjectFile(aFile({ id: 7, file: 'scan.dcm', filesize: 1000, kind: 'dicom' }), progress);
    expect(outcome).toBe('saved');
    expect(clicked).toEqual([{ href: 'blob:saved', download: 'scan.dcm' }]);
    const call = api.callsTo('GET', '/download-study-petitions-files/7')[0];
    expect(call?.config.responseType).toBe('blob');
    expect(call?.config.onDownloadProgress).toBeTypeOf('function');
    expect(api.callsTo('POST', '/download-links')).toHaveLength(0);
  });

  it('hands a larger file to the browser through a download link, reading none of it', async () => {
    const api = fakeApi({ 'GET /download-links/settings': settings(1000), 'POST /download-links': linkAnswer });
    const outcome = await downloadProjectFile(aFile({ id: 7, file: 'big.zip', filesize: 1001 }), vi.fn());
    expect(outcome).toBe('handed-to-browser');
    expect(api.callsTo('POST', '/download-links').map((c) => c.data)).toEqual([{ file_id: 7 }]);
    // The server's Content-Disposition names the file; no token travels in the URL.
    expect(clicked).toEqual([{ href: LINK, download: '' }]);
    expect(api.callsTo('GET', '/download-study-petitions-files/7')).toHaveLength(0);
  });

  it('hands every folder row to the browser, however small (its zip is made while it is sent)', async () => {
    const api = fakeApi({ 'GET /download-links/settings': settings(1000), 'POST /download-links': linkAnswer });
    expect(await downloadProjectFile(aFile({ id: 8, file: 'CD', filesize: 10, kind: 'folder' }), vi.fn())).toBe('handed-to-browser');
    expect(api.callsTo('POST', '/download-links').map((c) => c.data)).toEqual([{ file_id: 8 }]);
  });

  it('uses 256 MB when the server cannot say', async () => {
    fakeApi({ 'GET /download-links/settings': { status: 500 }, 'POST /download-links': linkAnswer });
    expect(await downloadProjectFile(aFile({ id: 7, filesize: 256 * 1024 * 1024 + 1 }), vi.fn())).toBe('handed-to-browser');
    fakeApi({ 'GET /download-links/settings': { status: 500 }, 'GET /download-study-petitions-files/7': { status: 200, data: new Blob(['x']) } });
    expect(await downloadProjectFile(aFile({ id: 7, filesize: 256 * 1024 * 1024 }), vi.fn())).toBe('saved');
  });

  it('fails with the spec’s messages before the hand-off, starting nothing', async () => {
    fakeApi({ 'GET /download-links/settings': settings(0), 'POST /download-links': { status: 404, data: { message: 'File not found' } } });
    const refused = await downloadProjectFile(aFile({ id: 7, filesize: 5 }), vi.fn()).catch((e: unknown) => e);
    expect(formatUserError(refused)).toBe('Resource Not Found: The requested file or resource does not exist');
    fakeApi({ 'GET /download-links/settings': { network: true }, 'POST /download-links': { network: true } });
    const offline = await downloadProjectFile(aFile({ id: 7, filesize: 256 * 1024 * 1024 + 1 }), vi.fn()).catch((e: unknown) => e);
    expect(formatUserError(offline)).toBe('Connection Error: Could not connect to server. Please check your internet connection.');
    fakeApi({ 'GET /download-links/settings': { status: 401 } });
    const ended = await downloadProjectFile(aFile({ id: 7, filesize: 5 }), vi.fn()).catch((e: unknown) => e);
    expect((ended as AxiosError).response?.status).toBe(401);
    expect(clicked).toEqual([]);
  });
});

describe('downloadEntry', () => {
  it('reads a small entry in the page and saves it under the name the server gives', async () => {
    answerApiWith((config) => {
      if (config.url === '/download-links/settings') return Promise.resolve({ ...settings(100), statusText: '', headers: {}, config });
      expect(config.url).toBe('/study-petitions-files/3/contents/9/download');
      return Promise.resolve({
        status: 200,
        statusText: '',
        data: new Blob(['dicom']),
        headers: { 'content-disposition': `attachment; filename="IM_1.dcm"; filename*=UTF-8''IM%C3%BC1.dcm` },
        config,
      });
    });
    expect(await downloadEntry(3, 9, 100)).toBe('saved');
    expect(clicked).toEqual([{ href: 'blob:saved', download: 'IMü1.dcm' }]);
  });

  it('hands a large entry to the browser through a link naming the entry', async () => {
    const api = fakeApi({ 'GET /download-links/settings': settings(100), 'POST /download-links': linkAnswer });
    expect(await downloadEntry(3, 9, 101)).toBe('handed-to-browser');
    expect(api.callsTo('POST', '/download-links').map((c) => c.data)).toEqual([{ file_id: 3, entry_id: 9 }]);
    expect(clicked).toEqual([{ href: LINK, download: '' }]);
  });
});

describe('attachmentName', () => {
  it.each([
    [`attachment; filename="a b.dcm"; filename*=UTF-8''a%20%C3%BC.dcm`, 'a ü.dcm'],
    ['attachment; filename="a b.dcm"', 'a b.dcm'],
    ['attachment; filename=plain.zip', 'plain.zip'],
    [`attachment; filename="fallback.dcm"; filename*=UTF-8''bad%E0%A4%A`, 'fallback.dcm'],
    ['attachment', undefined],
    [undefined, undefined],
  ])('reads %s as %s', (header, name) => {
    expect(attachmentName(header)).toBe(name);
  });
});
