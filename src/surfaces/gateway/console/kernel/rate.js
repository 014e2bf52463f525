const UNITS = { 1000: 's', 60000: 'min', 3600000: 'hour', 86400000: 'day' };

/** A key's rate as the gateway takes it back ('60/min'); '' for none. */
export const formatRate = (rate) =>
  rate ? `${rate.limit}/${UNITS[rate.windowMs] ?? `${rate.windowMs / 1000}s`}` : '';
