import { launchBrowser } from '../src/browser.js';
import { apiLogin } from '../src/api.js';
import { CT_SERIES, dicomPath, MR_SMALL } from '../src/files.js';
import { startPortal } from '../src/portal.js';
import { signInWithProject } from '../src/project-setup.js';
import { uploadDicom, waitForProcessing } from '../src/viewer.js';

const portal = await startPortal();
const browser = await launchBrowser();
try {
  const USER = { username: 'wilhelm', password: 'R0ntgen!Rays' };
  const { session, projectId } = await signInWithProject(portal, browser, { company: 'W', user: { ...USER, firstname: 'Wilhelm', lastname: 'Röntgen' }, project: 'First rays' });
  const { token } = await apiLogin(portal.url, USER.username, USER.password);
  const files = [...CT_SERIES.slice(0, 2), MR_SMALL];
  for (const name of files) await uploadDicom(portal.url, token, projectId, dicomPath(name));
  await waitForProcessing(portal.url, token, projectId, files.length);
  const state = await session.context.storageState();
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ baseURL: portal.url, viewport: { width, height: 800 }, colorScheme: scheme, storageState: state });
      const page = await context.newPage();
      for (const view of ['files', 'studies']) {
        await page.goto(`/study/${projectId}?view=${view}`);
        await page.getByRole('link', { name: /in viewer$/ }).first().waitFor();
        await page.screenshot({ path: `/tmp/shots-viewer/${view}-${width}-${scheme}.png`, fullPage: true });
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await portal.stop();
}
