// The timeline's bar and every plot under it share these insets (the plots' y axis on the left),
// so one log time is at one x across all of them.
export const TRACK_INSET_LEFT_PX = 46;
export const TRACK_INSET_RIGHT_PX = 14;
