package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {
  @Test
  void clusterIdsAreKafkaShapedAndNeverLookLikeAnOption() {
    IntStream.range(0, 5_000)
        .mapToObj(i -> KafkaBroker.randomClusterId())
        .forEach(id -> assertThat(id).hasSize(22).matches("[A-Za-z0-9_][A-Za-z0-9_-]{21}"));
  }
}
