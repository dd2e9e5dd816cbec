package io.streamhouse.connect.table.paimon;

import static io.streamhouse.connect.converter.JsonPayloads.ORDER;
import static io.streamhouse.connect.converter.JsonPayloads.order;
import static io.streamhouse.connect.converter.JsonPayloads.secondReading;
import static io.streamhouse.connect.converter.JsonPayloads.sparse;
import static io.streamhouse.connect.converter.JsonPayloads.unmade;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.schema.RecordSchemas;
import java.util.List;
import org.apache.kafka.connect.data.Struct;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;

/** A payload of FastJsonConverter makes the same Paimon row from its decoded row as its Struct. */
class PaimonRowConverterJsonTest {
  private final RowType rowType = (RowType) PaimonColumns.paimon(RecordSchemas.of(ORDER), true);

  @Test
  void aDecodedRowConvertsAsItsStructWouldWithoutBecomingOne() throws Exception {
    for (Struct value : List.of(order("Ann", "\u00e5se \u2603"), sparse())) {
      Struct json = secondReading(value);
      GenericRow fromRow =
          new PaimonRowConverter(rowType).convert(json, RowKind.INSERT, false, List.of("id"));
      assertThat(unmade(json)).as("read without the Struct").isTrue();
      GenericRow fromStruct =
          new PaimonRowConverter(rowType).convert(value, RowKind.INSERT, false, List.of("id"));
      assertThat(fromRow).isEqualTo(fromStruct);
    }
  }
}
