package io.playline.api.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldOptions;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.util.JsonFormat;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.playline.proto.v1.Business;
import io.playline.proto.v1.ClientFrame;
import io.playline.proto.v1.HistoryGrpc;
import io.playline.proto.v1.HistoryRecord;
import io.playline.proto.v1.ListHistoryResponse;
import io.playline.proto.v1.ServerFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonPrinter} prints exactly what JsonFormat's compact printer prints: for random messages
 * of every type the History service takes and answers and of the player stream's frames, for a
 * type with every scalar kind declared out of number order, and for what it hands to JsonFormat.
 */
class JsonPrinterTest {
  private static final JsonFormat.Printer JSON_FORMAT = JsonFormat.printer().omittingInsignificantWhitespace();
  /** Strings that exercise every escape: Gson's short ones, control characters, HTML-safe ones, U+2028/9, multi-byte. */
  private static final String[] PIECES = {"", "a", "pl", "\"", "\\", "/", "<", ">", "&", "=", "'", "\n", "\t", "\b",
      "\f", "\r", "\u0000", "\u0001", "\u001f", "\u007f", "\u0080", "é", "日本語", "😀", "\u2028", "\u2029", "\u2027",
      "\u202a", "\ufffd", "\uffff", "web-1", " "};

  private final Random random = new Random(20261206L);

  @Test
  void everyMessageOfTheHistoryServiceAndTheStreamPrintsAsJsonFormatDoes() throws Exception {
    List<Message> prototypes = new ArrayList<>();
    ServiceDescriptor service = HistoryGrpc.getServiceDescriptor();
    for (MethodDescriptor<?, ?> method : service.getMethods()) {
      prototypes.add(prototype(method.getRequestMarshaller()));
      prototypes.add(prototype(method.getResponseMarshaller()));
    }
    prototypes.add(ClientFrame.getDefaultInstance());
    prototypes.add(ServerFrame.getDefaultInstance());
    assertThat(prototypes).hasSizeGreaterThan(10);
    for (Message prototype : prototypes) {
      for (int i = 0; i < 300; i++) {
        assertSame(fill(prototype.newBuilderForType(), 0).build());
      }
      assertSame(prototype);
    }
  }

  @Test
  void aFullPageIsTheMappingsJson() throws Exception {
    ListHistoryResponse.Builder page = ListHistoryResponse.newBuilder().setHasMore(true);
    for (int i = 0; i < 20; i++) {
      page.addRecords(HistoryRecord.newBuilder().setUid(42).setBusiness(Business.VIDEO).setOid(1000 + i).setSubId(-1)
          .setProgressMs(i * 1000L).setDurationMs(Long.MAX_VALUE).setViewTimeMs(1_764_979_200_000L + i)
          .setDeviceId("dev \"" + i + "\"").setPlatform("<web>"));
    }
    page.getNextBuilder().setViewTimeMs(1).getItemBuilder().setBusiness(Business.forNumber(2)).setOid(7);
    String json = print(page.build());
    assertThat(json).startsWith("{\"records\":[{\"uid\":\"42\",\"business\":\"VIDEO\",\"oid\":\"1000\",\"subId\":\"-1\","
        + "\"durationMs\":\"9223372036854775807\",\"viewTimeMs\":\"1764979200000\",\"deviceId\":\"dev \\\"0\\\"\","
        + "\"platform\":\"\\u003cweb\\u003e\"},{");
    assertThat(json).endsWith("],\"next\":{\"viewTimeMs\":\"1\",\"item\":{\"business\":\"ARTICLE\",\"oid\":\"7\"}},"
        + "\"hasMore\":true}");
    assertSame(page.build());
  }

  @Test
  void everyScalarKindRepeatedPackedOrNotNestedOneofAndCustomJsonNames() throws Exception {
    Descriptor all = testFile().findMessageTypeByName("All");
    for (int i = 0; i < 3000; i++) {
      assertSame(fill(DynamicMessage.newBuilder(all), 0).build());
    }
    DynamicMessage.Builder unknownEnum = DynamicMessage.newBuilder(all);
    FieldDescriptor color = all.findFieldByName("color");
    unknownEnum.setField(color, color.getEnumType().findValueByNumberCreatingIfUnknown(77));
    assertThat(print(unknownEnum.build())).isEqualTo("{\"color\":77}");
  }

  @Test
  void whatThePlanDoesNotCoverIsPrintedByJsonFormat() throws Exception {
    assertSame(Timestamp.newBuilder().setSeconds(1_764_979_200L).setNanos(5_000_000).build(), false);
    Descriptor withMap = testFile().findMessageTypeByName("WithMap");
    DynamicMessage.Builder map = DynamicMessage.newBuilder(withMap);
    for (int i = 0; i < 50; i++) {
      assertSame(fill(map.clear(), 0).build(), false);
    }
    Descriptor withTime = testFile().findMessageTypeByName("WithTime");
    assertSame(DynamicMessage.newBuilder(withTime).setField(withTime.findFieldByName("at"),
        Timestamp.newBuilder().setSeconds(3).build()).setField(withTime.findFieldByName("n"), 5L).build(), false);
  }

  @Test
  void fieldsTheTypeDoesNotHaveAreLeftOutAsJsonFormatLeavesThem() throws Exception {
    HistoryRecord record = HistoryRecord.newBuilder().setUid(1).setOid(2).setPlatform("web")
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(3000, UnknownFieldSet.Field.newBuilder().addVarint(9).build())
            .addField(50, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("x")).build())
            .addField(51, UnknownFieldSet.Field.newBuilder().addFixed32(1).addFixed64(2).build()).build())
        .build();
    assertThat(print(record)).isEqualTo("{\"uid\":\"1\",\"oid\":\"2\",\"platform\":\"web\"}");
    assertSame(record);
  }

  private static Message prototype(MethodDescriptor.Marshaller<?> marshaller) {
    return (Message) ((MethodDescriptor.PrototypeMarshaller<?>) marshaller).getMessagePrototype();
  }

  private static String print(Message message) throws Exception {
    ByteBuf out = Unpooled.buffer();
    out.writeByte('x'); // printing appends: what is before stays
    JsonPrinter.print(message, out);
    assertThat(out.readByte()).isEqualTo((byte) 'x');
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Printed by the plan (not handed to JsonFormat), exactly as JsonFormat prints it. */
  private static void assertSame(Message message) throws Exception {
    assertSame(message, true);
  }

  private static void assertSame(Message message, boolean planned) throws Exception {
    String name = message.getDescriptorForType().getFullName();
    ByteBuf out = Unpooled.buffer();
    assertThat(JsonPrinter.transcribe(message, out)).as("%s printed by its plan", name).isEqualTo(planned);
    if (!planned) {
      assertThat(out.readableBytes()).isZero();
    }
    assertThat(print(message)).as("%s %s", name, message).isEqualTo(JSON_FORMAT.print(message));
  }

  /** Sets about half of the fields of {@code builder} to random values (messages nested up to 3 deep). */
  private Message.Builder fill(Message.Builder builder, int depth) {
    for (FieldDescriptor field : builder.getDescriptorForType().getFields()) {
      if (random.nextInt(10) < 4) {
        continue;
      }
      if (field.isMapField()) {
        for (int n = random.nextInt(3); n > 0; n--) {
          Message.Builder entry = builder.newBuilderForField(field);
          fill(entry, depth + 1);
          builder.addRepeatedField(field, entry.build());
        }
      } else if (field.isRepeated()) {
        for (int n = random.nextInt(4); n > 0; n--) {
          Object value = value(builder, field, depth);
          if (value != null) {
            builder.addRepeatedField(field, value);
          }
        }
      } else {
        Object value = value(builder, field, depth);
        if (value != null) {
          builder.setField(field, value);
        }
      }
    }
    return builder;
  }

  private Object value(Message.Builder builder, FieldDescriptor field, int depth) {
    return switch (field.getJavaType()) {
      case INT -> pick(new Integer[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt(),
          random.nextInt(1000)});
      case LONG -> pick(new Long[] {0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, random.nextLong(),
          (long) random.nextInt(100_000), 1_764_979_200_000L});
      case FLOAT -> pick(new Float[] {0f, -0f, 1.5f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
          Float.MIN_VALUE, Float.MAX_VALUE, random.nextFloat() * 1e9f, 1e-10f});
      case DOUBLE -> pick(new Double[] {0d, -0d, 2.25, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
          Double.MIN_VALUE, Double.MAX_VALUE, random.nextDouble() * 1e300, 1e-300});
      case BOOLEAN -> random.nextBoolean();
      case STRING -> {
        StringBuilder s = new StringBuilder();
        for (int n = random.nextInt(5); n > 0; n--) {
          s.append(PIECES[random.nextInt(PIECES.length)]);
        }
        yield s.toString();
      }
      case BYTE_STRING -> {
        byte[] bytes = new byte[random.nextInt(8)];
        random.nextBytes(bytes);
        yield ByteString.copyFrom(bytes);
      }
      case ENUM -> {
        var values = field.getEnumType().getValues();
        yield random.nextInt(8) == 0 ? field.getEnumType().findValueByNumberCreatingIfUnknown(100 + random.nextInt(3))
            : values.get(random.nextInt(values.size()));
      }
      case MESSAGE -> depth >= 3 ? null : fill(builder.newBuilderForField(field), depth + 1).build();
    };
  }

  private <T> T pick(T[] values) {
    return values[random.nextInt(values.length)];
  }

  /** Test types: every scalar kind, declared out of number order, repeated (packed and not), a oneof, a map, a Timestamp. */
  private static FileDescriptor testFile() throws DescriptorValidationException {
    DescriptorProto.Builder all = DescriptorProto.newBuilder().setName("All");
    FieldDescriptorProto.Type[] types = {FieldDescriptorProto.Type.TYPE_INT64, FieldDescriptorProto.Type.TYPE_INT32,
        FieldDescriptorProto.Type.TYPE_UINT64, FieldDescriptorProto.Type.TYPE_UINT32,
        FieldDescriptorProto.Type.TYPE_SINT64, FieldDescriptorProto.Type.TYPE_SINT32,
        FieldDescriptorProto.Type.TYPE_FIXED64, FieldDescriptorProto.Type.TYPE_FIXED32,
        FieldDescriptorProto.Type.TYPE_SFIXED64, FieldDescriptorProto.Type.TYPE_SFIXED32,
        FieldDescriptorProto.Type.TYPE_BOOL, FieldDescriptorProto.Type.TYPE_FLOAT, FieldDescriptorProto.Type.TYPE_DOUBLE,
        FieldDescriptorProto.Type.TYPE_STRING, FieldDescriptorProto.Type.TYPE_BYTES};
    int count = types.length;
    for (int i = 0; i < count; i++) {
      FieldDescriptorProto.Type type = types[i];
      String name = type.name().substring(5).toLowerCase();
      // declared in one order, numbered in another: JSON follows the numbers
      all.addField(field("s_" + name, (count - i) * 2, type, false));
      all.addField(field("r_" + name, 100 + i, type, true));
      if (type != FieldDescriptorProto.Type.TYPE_STRING && type != FieldDescriptorProto.Type.TYPE_BYTES) {
        all.addField(field("u_" + name, 200 + i, type, true).setOptions(FieldOptions.newBuilder().setPacked(false)));
      }
    }
    all.addField(field("color", 1, FieldDescriptorProto.Type.TYPE_ENUM, false).setTypeName(".t.Color"));
    all.addField(field("colors", 3, FieldDescriptorProto.Type.TYPE_ENUM, true).setTypeName(".t.Color"));
    all.addField(field("child", 5, FieldDescriptorProto.Type.TYPE_MESSAGE, false).setTypeName(".t.All"));
    all.addField(field("children", 7, FieldDescriptorProto.Type.TYPE_MESSAGE, true).setTypeName(".t.All"));
    all.addField(field("renamed", 9, FieldDescriptorProto.Type.TYPE_INT32, false).setJsonName("otherName"));
    all.addOneofDecl(OneofDescriptorProto.newBuilder().setName("choice"));
    all.addField(field("one_text", 300, FieldDescriptorProto.Type.TYPE_STRING, false).setOneofIndex(0));
    all.addField(field("one_number", 301, FieldDescriptorProto.Type.TYPE_INT64, false).setOneofIndex(0));
    all.addField(field("one_child", 302, FieldDescriptorProto.Type.TYPE_MESSAGE, false).setOneofIndex(0)
        .setTypeName(".t.All"));
    DescriptorProto entry = DescriptorProto.newBuilder().setName("CountsEntry")
        .addField(field("key", 1, FieldDescriptorProto.Type.TYPE_STRING, false))
        .addField(field("value", 2, FieldDescriptorProto.Type.TYPE_INT64, false))
        .setOptions(com.google.protobuf.DescriptorProtos.MessageOptions.newBuilder().setMapEntry(true)).build();
    DescriptorProto withMap = DescriptorProto.newBuilder().setName("WithMap").addNestedType(entry)
        .addField(field("counts", 1, FieldDescriptorProto.Type.TYPE_MESSAGE, true).setTypeName(".t.WithMap.CountsEntry"))
        .addField(field("name", 2, FieldDescriptorProto.Type.TYPE_STRING, false)).build();
    DescriptorProto withTime = DescriptorProto.newBuilder().setName("WithTime")
        .addField(field("at", 1, FieldDescriptorProto.Type.TYPE_MESSAGE, false).setTypeName(".google.protobuf.Timestamp"))
        .addField(field("n", 2, FieldDescriptorProto.Type.TYPE_INT64, false)).build();
    EnumDescriptorProto color = EnumDescriptorProto.newBuilder().setName("Color")
        .addValue(EnumValueDescriptorProto.newBuilder().setName("COLOR_UNSPECIFIED").setNumber(0))
        .addValue(EnumValueDescriptorProto.newBuilder().setName("RED").setNumber(1))
        .addValue(EnumValueDescriptorProto.newBuilder().setName("GREEN").setNumber(-2)).build();
    FileDescriptorProto file = FileDescriptorProto.newBuilder().setName("t.proto").setPackage("t").setSyntax("proto3")
        .addDependency("google/protobuf/timestamp.proto")
        .addMessageType(all).addMessageType(withMap).addMessageType(withTime).addEnumType(color).build();
    return FileDescriptor.buildFrom(file, new FileDescriptor[] {Timestamp.getDescriptor().getFile()});
  }

  private static FieldDescriptorProto.Builder field(String name, int number, FieldDescriptorProto.Type type,
      boolean repeated) {
    return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type)
        .setLabel(repeated ? FieldDescriptorProto.Label.LABEL_REPEATED : FieldDescriptorProto.Label.LABEL_OPTIONAL);
  }
}
