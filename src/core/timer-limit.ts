/** The longest a Node timer can wait (2^31 − 1 ms, about 24.8 days); a longer delay fires at once. */
export const maxTimerMs = 2_147_483_647;
