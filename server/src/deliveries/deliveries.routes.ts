// Deliveries: a folder sent as one unit (docs/api.md, 'Deliveries'). Its files travel by tus
// (tus.routes.ts) with the metadata `delivery` and `relativePath`.
import { listResponse, ZCreateDelivery, ZDelivery } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import type { DeliveriesService } from './deliveries.service.js';

const DeliveryParams = z.object({ id: zId('Delivery') });

export function deliveriesRoutes(deliveries: DeliveriesService) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/deliveries',
      {
        schema: {
          summary: 'Open a delivery: a folder whose files are then sent by tus with the metadata delivery and relativePath',
          body: ZCreateDelivery,
          response: {
            201: listResponse(ZDelivery).describe('Open, empty; invisible in the file list until completed'),
            400: BAD_REQUEST,
            403: FORBIDDEN,
            404: NOT_FOUND,
            422: errorResponse('Name over 255 characters'),
          },
        },
      },
      async (request, reply) => reply.status(201).send({ data: [await deliveries.create(sessionOf(request).actor, request.body)] }),
    );

    app.get(
      '/deliveries/:id',
      {
        schema: {
          summary: 'A delivery: open or completed, how many files arrived and their bytes',
          params: DeliveryParams,
          response: { 200: listResponse(ZDelivery).describe('The delivery'), 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await deliveries.get(sessionOf(request).actor, request.params.id)] }),
    );

    app.post(
      '/deliveries/:id/complete',
      {
        schema: {
          summary: 'Complete a delivery: it becomes one row of the project’s files (kind folder), processed by one job',
          params: DeliveryParams,
          response: {
            200: listResponse(ZDelivery).describe('Completed; file_id is its row in the file list'),
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: errorResponse('A file of it is still arriving, it has no file, or it is already complete'),
          },
        },
      },
      async (request) => ({ data: [await deliveries.complete(sessionOf(request).actor, request.params.id)] }),
    );
  };
}
