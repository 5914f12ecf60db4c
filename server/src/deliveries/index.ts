// What tus/ uses of deliveries/: the service its uploads ask before a byte of a delivery's file is
// stored, and hand each finished file to.
export { DeliveriesService } from './deliveries.service.js';
export type { DeliveryEvents } from './delivery-events.js';
