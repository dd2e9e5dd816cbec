package io.streamhouse.connect.converter;

/** What {@link ConverterMetrics} shows over JMX. */
public interface ConverterMetricsMXBean {
  /** Records handed to {@code JsonConverter}: the first of each schema and those not read here. */
  long getFallbacks();
}
