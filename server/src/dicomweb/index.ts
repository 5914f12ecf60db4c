// DICOMweb (PS3.18) for each project: what the composition root wires.
export { dicomwebRoutes } from './dicomweb.routes.js';
export { QidoRepository } from './qido.repository.js';
export { QidoService } from './qido.service.js';
export { WadoRepository } from './wado-repository.js';
export { wadoRoutes } from './wado-routes.js';
export { WadoService } from './wado-service.js';
