// /viewer/app-config.js: OHIF reads `window.config` from it before it starts (OHIF's own file
// name). The portal's version points OHIF's DICOMweb data source at one project's endpoint and
// gives each of OHIF's requests the user's bearer session, read where the web app keeps it
// (localStorage 'token', web/src/lib/storage.ts): the viewer is served from the portal's own
// origin, so it reads the same storage, and no token ever appears in a URL.
//
// The project comes from the viewer's URL (/viewer/viewer?project=12&StudyInstanceUIDs=…). OHIF
// drops unknown query parameters as it moves between its own pages, so the tab remembers the
// project (sessionStorage: this tab only) for a reload. The server checks the session and the
// project on every request; nothing here is trusted.
//
// `window.config` is a function, a form OHIF's appInit accepts, to receive OHIF's services: the
// data source's onConfiguration (called before its first request) hands the session to OHIF's
// user authentication service, whose Authorization header every DICOMweb and image request carries.

/** The web app's key for the bearer token (web/src/lib/storage.ts, TOKEN_KEY). */
export const SESSION_TOKEN_KEY = 'token';

export const APP_CONFIG_JS = `// The portal's configuration of the OHIF viewer (server/src/viewer/app-config.ts).
(function () {
  'use strict';
  var TOKEN_KEY = ${JSON.stringify(SESSION_TOKEN_KEY)};
  var PROJECT_KEY = 'portal.viewer.project';
  var SIGN_IN = '/';

  function token() {
    return window.localStorage.getItem(TOKEN_KEY);
  }

  // Signed out: the portal's sign-in page, not a viewer whose every request would be refused.
  if (!token()) window.location.replace(SIGN_IN);

  var asked = new URLSearchParams(window.location.search).get('project');
  if (asked && /^[1-9][0-9]{0,15}$/.test(asked)) window.sessionStorage.setItem(PROJECT_KEY, asked);
  var project = window.sessionStorage.getItem(PROJECT_KEY) || '0';
  var root = '/api/v1/study-petitions/' + project + '/dicomweb';

  function authorization() {
    var current = token();
    return current ? { Authorization: 'Bearer ' + current } : {};
  }

  // An upload's row opens '?file=ID': its studies are looked up before OHIF reads the URL.
  function showStudiesOfFile() {
    var query = new URLSearchParams(window.location.search);
    var file = query.get('file');
    if (!file || !/^[1-9][0-9]{0,15}$/.test(file) || query.get('StudyInstanceUIDs')) return Promise.resolve();
    return fetch('/api/v1/study-petitions-files/' + file + '/contents?limit=1', { headers: authorization() })
      .then(function (answer) {
        return answer.ok ? answer.json() : null;
      })
      .then(function (body) {
        var studies = body && body.data ? body.data.studies : [];
        if (!studies.length) return;
        query.delete('file');
        query.set('StudyInstanceUIDs', studies.map(function (study) { return study.study_instance_uid; }).join(','));
        window.history.replaceState(null, '', window.location.pathname + '?' + query.toString());
      })
      .catch(function () {
        // Then OHIF opens its list of the project's studies instead.
      });
  }

  window.config = async function (app) {
    var services = app.servicesManager.services;
    await showStudiesOfFile();
    return {
      routerBasename: '/viewer',
      extensions: [],
      modes: [],
      // No guided tour over the first image: the portal's users open the viewer to check what arrived.
      customizationService: { global: { 'ohif.tours': { $set: [] } } },
      showStudyList: true,
      maxNumberOfWebWorkers: 3,
      showWarningMessageForCrossOrigin: false,
      showCPUFallbackMessage: true,
      showLoadingIndicator: true,
      strictZSpacingForVolumeViewport: true,
      groupEnabledModesFirst: true,
      investigationalUseDialog: { option: 'never' },
      maxNumRequests: { interaction: 100, thumbnail: 5, prefetch: 25 },
      showErrorDetails: 'dev',
      defaultDataSourceName: 'portal',
      dataSources: [
        {
          namespace: '@ohif/extension-default.dataSourcesModule.dicomweb',
          sourceName: 'portal',
          configuration: {
            friendlyName: 'Secure Upload Portal',
            name: 'portal',
            qidoRoot: root,
            wadoRoot: root,
            wadoUriRoot: root,
            qidoSupportsIncludeField: true,
            imageRendering: 'wadors',
            thumbnailRendering: 'wadors',
            enableStudyLazyLoad: true,
            supportsFuzzyMatching: false,
            supportsWildcard: true,
            staticWado: false,
            bulkDataURI: { enabled: true },
            omitQuotationForMultipartRequest: true,
            onConfiguration: function (configuration) {
              services.userAuthenticationService.setServiceImplementation({ getAuthorizationHeader: authorization });
              return configuration;
            },
          },
        },
      ],
      // A session that ended while the viewer was open: sign in again.
      httpErrorHandler: function (error) {
        if (error && error.status === 401) window.location.replace(SIGN_IN);
      },
    };
  };
})();
`;
