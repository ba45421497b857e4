// A small sequential network (patch convolutions, dense layers, ReLU) and its ONNX form. The default
// encoders are such networks: the models' build script trains them and writes them out with this,
// and the perception bench writes a randomly initialised one of the same shape as its floor.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

/**
 * Weights use TensorFlow's layouts: a patch convolution's filter is [kernelH, kernelW, in, out] and
 * its stride equals its kernel (non-overlapping patches); a dense layer's is [in, out].
 */
export type LayerSpec =
  | { kind: 'patch-conv'; kernelPx: readonly [number, number]; inChannels: number; outChannels: number; weights: Float32Array; bias: Float32Array }
  | { kind: 'dense'; inSize: number; outSize: number; weights: Float32Array; bias: Float32Array }
  | { kind: 'relu' }
  /** From an [H, W, C] feature map to a vector, in H, W, C order. */
  | { kind: 'flatten' };

export interface SequentialNet {
  inputName: string;
  outputName: string;
  /** Without the batch: [H, W, C] for an image (NHWC), [n] for a vector. */
  inputShape: readonly number[];
  layers: readonly LayerSpec[];
}

/** The shape of what each layer gives, without the batch; throws when the layers do not fit together. */
export function outputShapes(net: SequentialNet): number[][] {
  const shapes: number[][] = [];
  let shape = [...net.inputShape];
  for (const [index, layer] of net.layers.entries()) {
    switch (layer.kind) {
      case 'patch-conv': {
        const [kernelH, kernelW] = layer.kernelPx;
        const [height, width, channels] = shape;
        if (shape.length !== 3 || channels !== layer.inChannels || height! % kernelH !== 0 || width! % kernelW !== 0) {
          throw new RangeError(`layer ${index}: a ${kernelH}×${kernelW} patch convolution of ${layer.inChannels} channels does not fit [${shape.join(', ')}]`);
        }
        shape = [height! / kernelH, width! / kernelW, layer.outChannels];
        break;
      }
      case 'dense':
        if (shape.length !== 1 || shape[0] !== layer.inSize)
          throw new RangeError(`layer ${index}: dense of ${layer.inSize} inputs does not fit [${shape.join(', ')}]`);
        shape = [layer.outSize];
        break;
      case 'flatten':
        shape = [shape.reduce((a, b) => a * b, 1)];
        break;
      case 'relu':
        break;
    }
    shapes.push(shape);
  }
  return shapes;
}

function floatTensor(name: string, dims: number[], values: Float32Array): onnxProto.onnx.ITensorProto {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return { name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(bytes) };
}

function int64Tensor(name: string, values: number[]): onnxProto.onnx.ITensorProto {
  const data = new BigInt64Array(values.map((v) => BigInt(v)));
  return { name, dims: [values.length], dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(data.buffer) };
}

const intsAttribute = (name: string, ints: number[]): onnxProto.onnx.IAttributeProto => ({ name, ints, type: onnx.AttributeProto.AttributeType.INTS });

/** [kh, kw, in, out] → ONNX's [out, in, kh, kw]. */
function filterToOihw(weights: Float32Array, kernelH: number, kernelW: number, inChannels: number, outChannels: number): Float32Array {
  const out = new Float32Array(weights.length);
  for (let dy = 0; dy < kernelH; dy++)
    for (let dx = 0; dx < kernelW; dx++)
      for (let c = 0; c < inChannels; c++)
        for (let o = 0; o < outChannels; o++) {
          out[((o * inChannels + c) * kernelH + dy) * kernelW + dx] = weights[((dy * kernelW + dx) * inChannels + c) * outChannels + o]!;
        }
  return out;
}

/** The network as an ONNX model (opset 13) taking [batch, ...inputShape] float32. */
export function sequentialToOnnx(net: SequentialNet, producerVersion: string): Uint8Array {
  outputShapes(net);
  const nodes: onnxProto.onnx.INodeProto[] = [];
  const initializers: onnxProto.onnx.ITensorProto[] = [];
  let current = net.inputName;
  let channelsFirst = false;
  const next = (index: number, what: string) => `l${index}_${what}`;

  for (const [index, layer] of net.layers.entries()) {
    switch (layer.kind) {
      case 'patch-conv': {
        if (!channelsFirst) {
          nodes.push({ opType: 'Transpose', input: [current], output: [next(index, 'nchw')], attribute: [intsAttribute('perm', [0, 3, 1, 2])] });
          current = next(index, 'nchw');
          channelsFirst = true;
        }
        const [kernelH, kernelW] = layer.kernelPx;
        initializers.push(
          floatTensor(
            next(index, 'w'),
            [layer.outChannels, layer.inChannels, kernelH, kernelW],
            filterToOihw(layer.weights, kernelH, kernelW, layer.inChannels, layer.outChannels),
          ),
          floatTensor(next(index, 'b'), [layer.outChannels], layer.bias),
        );
        nodes.push({
          opType: 'Conv',
          input: [current, next(index, 'w'), next(index, 'b')],
          output: [next(index, 'conv')],
          attribute: [intsAttribute('kernel_shape', [kernelH, kernelW]), intsAttribute('strides', [kernelH, kernelW])],
        });
        current = next(index, 'conv');
        break;
      }
      case 'flatten':
        if (channelsFirst) {
          nodes.push({ opType: 'Transpose', input: [current], output: [next(index, 'nhwc')], attribute: [intsAttribute('perm', [0, 2, 3, 1])] });
          current = next(index, 'nhwc');
          channelsFirst = false;
        }
        initializers.push(int64Tensor(next(index, 'shape'), [0, -1]));
        nodes.push({ opType: 'Reshape', input: [current, next(index, 'shape')], output: [next(index, 'flat')] });
        current = next(index, 'flat');
        break;
      case 'dense':
        initializers.push(
          floatTensor(next(index, 'w'), [layer.inSize, layer.outSize], layer.weights),
          floatTensor(next(index, 'b'), [layer.outSize], layer.bias),
        );
        nodes.push({ opType: 'Gemm', input: [current, next(index, 'w'), next(index, 'b')], output: [next(index, 'dense')] });
        current = next(index, 'dense');
        break;
      case 'relu':
        nodes.push({ opType: 'Relu', input: [current], output: [next(index, 'relu')] });
        current = next(index, 'relu');
        break;
    }
  }
  nodes.push({ opType: 'Identity', input: [current], output: [net.outputName] });

  const shapes = outputShapes(net);
  const valueInfo = (name: string, dims: readonly number[]): onnxProto.onnx.IValueInfoProto => ({
    name,
    type: {
      tensorType: {
        elemType: onnx.TensorProto.DataType.FLOAT,
        shape: { dim: [{ dimParam: 'batch' }, ...dims.map((dimValue) => ({ dimValue }))] },
      },
    },
  });
  const model: onnxProto.onnx.IModelProto = {
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'reins',
    producerVersion,
    graph: {
      name: net.outputName,
      node: nodes.map((node, i) => ({ ...node, name: `n${i}_${node.opType}` })),
      initializer: initializers,
      input: [valueInfo(net.inputName, net.inputShape)],
      output: [valueInfo(net.outputName, shapes.at(-1) ?? [])],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}
