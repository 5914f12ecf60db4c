import { launchBrowser, openSession } from '../src/browser.js';
import { apiLogin } from '../src/api.js';
import { CT_SERIES, dicomPath, MR_SMALL } from '../src/files.js';
import { startPortal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { uploadDicom, waitForProcessing, readViewport } from '../src/viewer.js';

const portal = await startPortal();
const browser = await launchBrowser();
try {
  const USER = { username: 'wilhelm', password: 'R0ntgen!Rays' };
  const { session, projectId } = await signInWithProject(portal, browser, { company: 'W', user: { ...USER, firstname: 'W', lastname: 'R' }, project: 'P' });
  const { token } = await apiLogin(portal.url, USER.username, USER.password);
  const files = [...CT_SERIES, MR_SMALL];
  for (const name of files) await uploadDicom(portal.url, token, projectId, dicomPath(name));
  await waitForProcessing(portal.url, token, projectId, files.length);
  const page = await session.context.newPage();
  page.on('console', (m) => console.log('console', m.type(), m.text().slice(0, 300)));
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  let t0 = Date.now();
  page.on('response', (r) => { if (true) console.log("resp", Date.now() - t0, r.status(), r.url().slice(0, 160)); });
  page.on('requestfailed', (r) => console.log('failed', r.url().slice(0, 200), r.failure()?.errorText));
  const target = process.argv[2] ?? `/viewer/viewer?project=${projectId}&StudyInstanceUIDs=1.3.6.1.4.1.5962.1.1.0.0.0.1194734704.16302.0.1`;
  t0 = Date.now();
  await page.goto(target.replace('PID', String(projectId)), { waitUntil: 'commit' });
  page.on('load', () => console.log('load after', Date.now() - t0));
  await new Promise((r) => setTimeout(r, 45000));
  console.log('url', page.url());
  console.log('viewport', JSON.stringify(await readViewport(page)));
  await page.screenshot({ path: '/tmp/shots-viewer/explore.png' });
} finally {
  await browser.close();
  await portal.stop();
}
