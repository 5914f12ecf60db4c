import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('configuration from the environment', () => {
  it('has safe defaults: port 8080, SQLite under ./data', () => {
    const config = loadConfig({ INIT_CWD: '/srv/portal' });
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe(path.resolve('/srv/portal/data'));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.bootstrapAdmin).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['LOG_LEVEL', 'loud'],
    ['MAX_UPLOAD_BYTES', '0'],
    ['TOKEN_IDLE_MINUTES', '1.5'],
    ['TRUST_PROXY', 'maybe'],
    ['LOGIN_MAX_FAILURES_PER_PAIR', '0'],
    ['LOGIN_DELAY_BASE_SECONDS', 'soon'],
    ['UPLOAD_IDLE_TIMEOUT_SECONDS', '0'],
    ['UPLOAD_IDLE_TIMEOUT_SECONDS', '3601'],
    ['UPLOAD_IDLE_TIMEOUT_SECONDS', 'a minute'],
    ['UPLOAD_CHUNK_BYTES', '1048575'],
    ['UPLOAD_CHUNK_BYTES', '256MB'],
    ['UPLOAD_CHUNK_BYTES', '67108864.5'],
    ['MAX_ARCHIVES_PER_UPLOAD', '0'],
    ['MIN_FREE_BYTES', '2GB'],
    ['MIN_FREE_BYTES', '150%'],
    ['MIN_FREE_BYTES', '-1'],
    ['DEFAULT_COMPANY_QUOTA_BYTES', '-1'],
    ['DEFAULT_COMPANY_QUOTA_BYTES', 'lots'],
    ['MAX_ENTRIES_SEEN_PER_UPLOAD', '-1'],
    ['MAX_PROCESSING_SECONDS', 'an hour'],
    ['MAX_PROCESSING_SECONDS', '0'],
    ['PROCESSING_CONCURRENCY', '0'],
    ['DOWNLOAD_IN_PAGE_MAX_BYTES', '-1'],
    ['DOWNLOAD_IN_PAGE_MAX_BYTES', '256MB'],
    ['DOWNLOAD_LINK_START_SECONDS', '4'],
    ['DOWNLOAD_LINK_START_SECONDS', '3601'],
    ['DOWNLOAD_LINK_RESUME_HOURS', '0'],
    ['DOWNLOAD_LINK_RESUME_HOURS', '169'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('reads downloads up to 256 MB in the page; links start within 60 s and resume for 24 h', () => {
    expect(loadConfig({}).downloads).toEqual({ inPageMaxBytes: 256 * 1024 ** 2, linkStartMs: 60_000, linkResumeMs: 24 * 3_600_000 });
    expect(
      loadConfig({ DOWNLOAD_IN_PAGE_MAX_BYTES: '0', DOWNLOAD_LINK_START_SECONDS: '30', DOWNLOAD_LINK_RESUME_HOURS: '2' }).downloads,
    ).toEqual({ inPageMaxBytes: 0, linkStartMs: 30_000, linkResumeMs: 2 * 3_600_000 });
  });

  it('wants ADMIN_USERNAME and ADMIN_PASSWORD together', () => {
    expect(() => loadConfig({ ADMIN_USERNAME: 'root' })).toThrow(/ADMIN_USERNAME and ADMIN_PASSWORD/);
    expect(loadConfig({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'Secr3t!pw' }).bootstrapAdmin?.username).toBe('root');
  });

  it('turns lifetimes into milliseconds', () => {
    const config = loadConfig({ TOKEN_IDLE_MINUTES: '30', TOKEN_ABSOLUTE_HOURS: '8' });
    expect(config.tokenIdleMs).toBe(30 * 60_000);
    expect(config.tokenAbsoluteMs).toBe(8 * 3_600_000);
  });

  it('throttles passwords per address, per pair and per account by default, with a capped delay', () => {
    expect(loadConfig({}).loginThrottle).toEqual({
      maxPerIp: 30,
      maxPerPair: 5,
      maxPerUser: 10,
      windowMs: 900_000,
      delayBaseMs: 5_000,
      delayMaxMs: 300_000,
    });
    expect(() => loadConfig({ LOGIN_DELAY_BASE_SECONDS: '60', LOGIN_DELAY_MAX_SECONDS: '30' })).toThrow(
      /LOGIN_DELAY_MAX_SECONDS must be at least LOGIN_DELAY_BASE_SECONDS/,
    );
  });

  it('stops stalled uploads after 60 s unless told otherwise', () => {
    expect(loadConfig({}).uploadIdleTimeoutMs).toBe(60_000);
    expect(loadConfig({ UPLOAD_IDLE_TIMEOUT_SECONDS: '15' }).uploadIdleTimeoutMs).toBe(15_000);
  });

  it('tells the web app to send tus uploads in 256 MiB chunks unless UPLOAD_CHUNK_BYTES says otherwise', () => {
    expect(loadConfig({}).resumable.chunkBytes).toBe(256 * 1024 ** 2);
    expect(loadConfig({ UPLOAD_CHUNK_BYTES: '67108864' }).resumable.chunkBytes).toBe(64 * 1024 ** 2);
    expect(loadConfig({ UPLOAD_CHUNK_BYTES: '1048576' }).resumable.chunkBytes).toBe(1024 ** 2);
    expect(() => loadConfig({ UPLOAD_CHUNK_BYTES: '65536' })).toThrow(/UPLOAD_CHUNK_BYTES: must be at least 1048576 \(1 MiB\)/);
  });

  it('bounds the work of one upload and runs two processing slots by default', () => {
    const { processing } = loadConfig({});
    expect(processing.concurrency).toBe(2);
    expect(processing.limits).toMatchObject({ maxArchives: 1000, maxEntriesSeen: 1_000_000, maxProcessingMs: 3_600_000 });
    const set = loadConfig({ MAX_ARCHIVES_PER_UPLOAD: '50', MAX_ENTRIES_SEEN_PER_UPLOAD: '5000', MAX_PROCESSING_SECONDS: '90' }).processing.limits;
    expect(set).toMatchObject({ maxArchives: 50, maxEntriesSeen: 5000, maxProcessingMs: 90_000 });
  });

  it('keeps unfinished tus uploads on the node that received them unless TUS_STORE or S3_BUCKET says the nodes share them', () => {
    expect(loadConfig({}).resumable.store).toBe('file');
    expect(loadConfig({ TUS_STORE: 'shared' }).resumable.store).toBe('shared');
    expect(loadConfig({ S3_BUCKET: 'portal' }).resumable.store).toBe('shared');
    expect(loadConfig({ S3_BUCKET: 'portal', TUS_STORE: 'file' }).resumable.store).toBe('file');
    expect(() => loadConfig({ TUS_STORE: 'redis' })).toThrow(/TUS_STORE/);
  });

  it('leaves companies unlimited and keeps the smaller of 2 GiB and 5 % free by default; reads bytes or a percentage', () => {
    expect(loadConfig({}).storageLimits).toEqual({ defaultCompanyQuotaBytes: null, minFree: { bytes: 2 * 1024 ** 3, percent: 5 } });
    expect(loadConfig({ DEFAULT_COMPANY_QUOTA_BYTES: '1000', MIN_FREE_BYTES: '5368709120' }).storageLimits).toEqual({
      defaultCompanyQuotaBytes: 1000,
      minFree: { bytes: 5368709120, percent: undefined },
    });
    expect(loadConfig({ MIN_FREE_BYTES: '12.5%' }).storageLimits.minFree).toEqual({ bytes: undefined, percent: 12.5 });
    expect(() => loadConfig({ MIN_FREE_BYTES: '5 GiB' })).toThrow(/MIN_FREE_BYTES: must be a number of bytes \(such as 5368709120\) or a percentage/);
  });

  describe('S3 storage settings', () => {
    const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const s3Env = {
      S3_BUCKET: 'portal-files',
      S3_ENDPOINT: 'https://s3.example.org:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      S3_SECRET_ACCESS_KEY: SECRET,
      S3_FORCE_PATH_STYLE: 'true',
      INIT_CWD: '/srv/portal',
    };

    it('keeps files under DATA_DIR when S3_BUCKET is not set', () => {
      expect(loadConfig({}).s3).toBeUndefined();
    });

    it('reads every S3 setting, with a local work area under DATA_DIR capped at the largest upload', () => {
      const { s3 } = loadConfig({ ...s3Env, MAX_UPLOAD_BYTES: String(5 * 1024 ** 3) });
      expect(s3).toMatchObject({
        bucket: 'portal-files',
        endpoint: 'https://s3.example.org:9000',
        region: 'eu-central-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'AKIAEXAMPLE' },
        workDir: path.resolve('/srv/portal/data/s3-work'),
        workMaxBytes: 5 * 1024 ** 3,
      });
      expect(s3?.credentials?.secretAccessKey).toBe(SECRET);
      const capped = loadConfig({ ...s3Env, S3_WORK_DIR: '/var/tmp/portal', S3_WORK_MAX_BYTES: String(2 * 1024 ** 3) }).s3;
      expect(capped).toMatchObject({ workDir: '/var/tmp/portal', workMaxBytes: 2 * 1024 ** 3 });
    });

    it('never shows the secret key when the configuration is logged or printed', async () => {
      const config = loadConfig(s3Env);
      const { inspect } = await import('node:util');
      expect(JSON.stringify(config)).not.toContain(SECRET);
      expect(inspect(config, { depth: 10 })).not.toContain(SECRET);
    });

    it('uses the machine\'s own AWS credentials when no key is given', () => {
      expect(loadConfig({ S3_BUCKET: 'portal-files' }).s3).toMatchObject({ credentials: undefined, region: 'us-east-1', endpoint: undefined, forcePathStyle: false });
    });

    it.each([
      ['S3_BUCKET', 'Portal_Files'],
      ['S3_BUCKET', 'ab'],
      ['S3_ENDPOINT', 's3.example.org'],
      ['S3_ENDPOINT', 'ftp://s3.example.org'],
      ['S3_REGION', 'EU Central'],
      ['S3_FORCE_PATH_STYLE', 'yes'],
      ['S3_WORK_MAX_BYTES', '1000'],
    ])('refuses %s=%s with a message naming it and not the secret', (name, value) => {
      const attempt = () => loadConfig({ ...s3Env, [name]: value });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(name);
      expect(attempt).not.toThrow(SECRET);
    });

    it('wants the key id and the secret together', () => {
      expect(() => loadConfig({ S3_BUCKET: 'portal-files', S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' })).toThrow(
        'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together',
      );
    });

    it('refuses S3 settings without a bucket rather than silently keeping files on this machine', () => {
      expect(() => loadConfig({ S3_ENDPOINT: 'https://s3.example.org' })).toThrow(/S3_ENDPOINT set without S3_BUCKET/);
    });
  });

  it('serves metrics to no bearer of its own unless METRICS_TOKEN is set, and a worker port only with it', () => {
    const token = 'a'.repeat(64);
    expect(loadConfig({}).metrics).toEqual({ token: undefined, port: undefined });
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_PORT: '9464' }).metrics).toEqual({ token, port: 9464 });
    expect(() => loadConfig({ METRICS_PORT: '9464' })).toThrow(/METRICS_PORT needs METRICS_TOKEN/);
  });

  it.each([
    ['METRICS_TOKEN', 'too-short-to-be-safe'],
    ['METRICS_TOKEN', `${'a'.repeat(40)} with spaces`],
    ['METRICS_PORT', '65536'],
    ['METRICS_PORT', 'nine'],
  ])('refuses %s=%s without printing the value', (name, value) => {
    const env = { METRICS_TOKEN: 'b'.repeat(40), [name]: value };
    expect(() => loadConfig(env)).toThrow(name);
    expect(() => loadConfig(env)).not.toThrow(value);
  });

  it('creates new projects with de-identification off unless DEIDENTIFICATION_DEFAULT says basic, with the options given', () => {
    expect(loadConfig({}).newProjectDeidentification).toEqual({ profile: 'off', options: [] });
    expect(
      loadConfig({ DEIDENTIFICATION_DEFAULT: 'basic', DEIDENTIFICATION_DEFAULT_OPTIONS: ' retainUIDs,cleanDescriptors,retainUIDs ' }).newProjectDeidentification,
    ).toEqual({ profile: 'basic', options: ['cleanDescriptors', 'retainUIDs'] });
    expect(() => loadConfig({ DEIDENTIFICATION_DEFAULT: 'strict' })).toThrow('DEIDENTIFICATION_DEFAULT: must be off or basic');
    expect(() => loadConfig({ DEIDENTIFICATION_DEFAULT: 'basic', DEIDENTIFICATION_DEFAULT_OPTIONS: 'retainUIDs,keepNames' })).toThrow(
      'DEIDENTIFICATION_DEFAULT_OPTIONS: must be options separated by commas, of retainLongitudinalModifiedDates',
    );
    expect(() => loadConfig({ DEIDENTIFICATION_DEFAULT_OPTIONS: 'retainUIDs' })).toThrow('DEIDENTIFICATION_DEFAULT_OPTIONS needs DEIDENTIFICATION_DEFAULT=basic');
  });
});
