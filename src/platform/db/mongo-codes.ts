/** MongoDB's error code for a write that would duplicate a unique key (an `_id` already there). */
export const DUPLICATE_KEY = 11000;
