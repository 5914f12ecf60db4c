/** A reason the move stops or fails, in words for the operator; the command prints it and exits 1. */
export class MoveError extends Error {}
